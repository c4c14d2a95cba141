"""Self-test of the reference evaluator (python3 tools/hf_oracle/test_expr.py). Also a list of
cases the C++ evaluator should agree with."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from expr import ExprError, eval_cond, eval_expr  # noqa: E402
from template import layer_kind  # noqa: E402

ENV = {"hidden_size": 4096, "num_attention_heads": 32, "text_config.head_dim": 128, "a": 7, "b": 2,
       "tie_word_embeddings": False, "attention_bias": True, "layer_types": ["sliding", "full", "sliding"],
       "pattern": "M*-", "mlp_only_layers": [1], "first_k_dense_replace": 3, "k": None, "s": "gated-gelu"}

CASES = [
    ("hidden_size // num_attention_heads", 128),
    ("2 * text_config.head_dim * num_attention_heads", 8192),
    ("a // b", 3), ("-a // b", -4), ("ceil_div(a, b)", 4), ("min(a, b) + max(a, b)", 9),
    ("a - b - 1", 4), ("(a - b) * 3", 15), ("len(layer_types)", 3), ("len(pattern) * 2", 6),
]
CONDS = [
    ("!tie_word_embeddings", True), ("attention_bias && !tie_word_embeddings", True),
    ("tie_word_embeddings || attention_bias", True), ("k == null", True), ("k != null", False),
    ("missing", False), ("!missing", True), ('s == "gated-gelu"', True), ("a == 7", True),
    ("hidden_size != num_attention_heads", True), ("a == b", False),
]


def main():
    for e, want in CASES:
        got = eval_expr(e, ENV)
        assert got == want, (e, got, want)
    for e, want in CONDS:
        got = eval_cond(e, ENV)
        assert got == want, (e, got, want)
    for bad in ("missing + 1", "tie_word_embeddings * 2", "a //", "a // 0"):
        try:
            eval_expr(bad, ENV)
        except ExprError:
            continue
        raise AssertionError("expected failure: " + bad)
    n = 6
    assert [layer_kind({"rule": "period", "period": "3", "offset": "3 - 1", "match": "F", "other": "S"}, i, n, ENV)
            for i in range(n)] == list("SSFSSF")
    assert [layer_kind({"rule": "first_k", "key": "first_k_dense_replace", "first": "d", "rest": "m"}, i, n, ENV)
            for i in range(n)] == list("dddmmm")
    assert [layer_kind({"rule": "period", "period": "1", "offset": "0", "match": "moe", "other": "mlp",
                        "except": {"key": "mlp_only_layers", "kind": "mlp"}}, i, 3, ENV)
            for i in range(3)] == ["moe", "mlp", "moe"]
    assert [layer_kind({"rule": "string", "key": "pattern", "map": {"M": "mamba", "*": "attn", "-": "mlp"}}, i, 3, ENV)
            for i in range(3)] == ["mamba", "attn", "mlp"]
    assert [layer_kind({"rule": "indices", "key": "mlp_only_layers", "in": "x", "out": "y"}, i, 3, ENV)
            for i in range(3)] == ["y", "x", "y"]
    fb = {"rule": "list", "key": "nope", "map": {}, "fallback": {"rule": "all", "kind": "z"}}
    assert layer_kind(fb, 0, 1, ENV) == "z"
    print("%d passed, 0 failed" % (len(CASES) + len(CONDS) + 10))


if __name__ == "__main__":
    main()
