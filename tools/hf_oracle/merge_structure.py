"""Merge per-type results of tools/hf_oracle/.cache/structure into generated/hf_structure.json:
a type takes the new result when it was not generated before, or the new result is no worse
(exact > approximate > failed > not_generated). KV templates from the oracle as gen_structure does.

    python3 tools/hf_oracle/merge_structure.py [model_type ...]   (default: every cached type)

For a run that covers some types only (`gen_structure.py TYPE...` writes their results to the
cache and returns): their results join the committed file without re-running the others."""
import json, os, sys
from collections import OrderedDict
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(REPO, 'tools/hf_oracle/generated/hf_structure.json')
PARTIAL = os.path.join(REPO, 'tools/hf_oracle/.cache/structure')
rank = {'exact': 3, 'approximate': 2, 'failed': 1, 'not_generated': 0}
only = set(sys.argv[1:])
d = json.load(open(OUT), object_pairs_hook=OrderedDict)
orows = json.load(open(os.path.join(REPO, 'tests/fixtures/transformers_oracle/oracle.json')), object_pairs_hook=OrderedDict)['rows']
changed = []
for f in sorted(os.listdir(PARTIAL)):
    mt = f[:-5]
    if only and mt not in only: continue
    if mt not in d['models']: continue
    new = json.load(open(os.path.join(PARTIAL, f)), object_pairs_hook=OrderedDict)
    old = d['models'][mt]
    if rank[new['status']] < rank[old['status']]:
        print('kept', mt, old['status'], '(new', new['status'] + ')'); continue
    kvt = (orows.get(mt) or {}).get('kv_template')
    if kvt is not None: new['kv'] = kvt
    if json.dumps(new, sort_keys=True) != json.dumps(old, sort_keys=True):
        changed.append((mt, old['status'], new['status']))
    d['models'][mt] = new
st = {}
for r in d['models'].values(): st[r['status']] = st.get(r['status'], 0) + 1
d['summary'] = OrderedDict(sorted(st.items()))
lines = ['{']
for k in [k for k in d if k != 'models']:
    lines.append(' %s: %s,' % (json.dumps(k), json.dumps(d[k], separators=(',', ':'))))
lines.append(' "models": {')
mts = sorted(d['models'])
for i, mt in enumerate(mts):
    lines.append('  %s: %s%s' % (json.dumps(mt), json.dumps(d['models'][mt], separators=(',', ':')), ',' if i < len(mts) - 1 else ''))
lines.append(' }'); lines.append('}')
open(OUT, 'w').write('\n'.join(lines) + '\n')
for c in changed: print('changed', *c)
print('summary', dict(d['summary']))
