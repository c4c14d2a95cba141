#include "doctor/framework_probe.h"

#include <nlohmann/json.hpp>

namespace gpuprobe::doctor {
namespace {

// find_spec first, so a framework that is not installed is told apart from one whose import
// fails (a missing libcudnn raises ImportError too). The CUDA a pip install runs on is the
// nvidia-cuda-runtime wheel's, so that version refines a wheel named only for a major.
constexpr const char* kScript = R"PY(import json, os, re, importlib.util
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
out = {}
def wheels():
    try:
        import importlib.metadata as md
        return {(d.metadata['Name'] or '').lower().replace('_', '-'): d.version for d in md.distributions()}
    except Exception:
        return {}
W = wheels()
def runtime_of(major):
    for name in ('nvidia-cuda-runtime-cu' + major, 'nvidia-cuda-runtime'):
        v = W.get(name, '')
        if v.split('.')[0] == major:
            return '.'.join(v.split('.')[:2])
    return major
def wheel_match(pattern):
    for name in W:
        m = re.match(pattern, name)
        if m:
            return m
    return None
def probe(key, module, fn):
    try:
        if importlib.util.find_spec(module) is None:
            return
    except Exception:
        return
    try:
        out[key] = fn()
    except BaseException as e:
        out[key] = {'error': ('%s: %s' % (type(e).__name__, e))[:400]}
def torch_info():
    import torch
    flags = ''
    try:
        flags = torch._C._cuda_getArchFlags() or ''
    except Exception:
        pass
    cuda = torch.version.cuda or ''
    return {'version': torch.__version__, 'cuda': cuda, 'cpu_only': not cuda, 'archs': flags}
def tf_info():
    import tensorflow as tf
    info = dict(tf.sysconfig.get_build_info())
    built = bool(info.get('is_cuda_build', False))
    caps = info.get('cuda_compute_capabilities') or []
    return {'version': tf.__version__, 'cuda': str(info.get('cuda_version', '') or '') if built else '',
            'cpu_only': not built, 'archs': ' '.join(str(c) for c in caps)}
def jax_info():
    import jax
    m = wheel_match(r'jax-cuda(\d+)-plugin$')
    major = m.group(1) if m else ''
    if not major:
        try:
            import jaxlib
            m = re.search(r'cuda(\d+)', jaxlib.__version__)
            major = m.group(1) if m else ''
        except Exception:
            pass
    return {'version': jax.__version__, 'cuda': runtime_of(major) if major else '', 'cpu_only': not major}
def cupy_info():
    import cupy
    cuda = ''
    try:
        v = cupy.cuda.runtime.runtimeGetVersion()
        cuda = '%d.%d' % (v // 1000, (v % 1000) // 10)
    except Exception:
        m = wheel_match(r'cupy-cuda(\d+)(x?)$')
        if m and m.group(2):
            cuda = runtime_of(m.group(1))
        elif m and len(m.group(1)) >= 2:
            cuda = m.group(1)[:-1] + '.' + m.group(1)[-1]
    return {'version': cupy.__version__, 'cuda': cuda, 'cpu_only': False}
probe('torch', 'torch', torch_info)
probe('tensorflow', 'tensorflow', tf_info)
probe('jax', 'jax', jax_info)
probe('cupy', 'cupy', cupy_info)
print(json.dumps(out))
)PY";

struct Known {
  const char* key;
  const char* id;
  const char* name;
  const char* url;
};
constexpr Known kKnown[] = {
    {"torch", "pytorch", "PyTorch", "https://pytorch.org/get-started/locally/"},
    {"tensorflow", "tensorflow", "TensorFlow", "https://www.tensorflow.org/install/pip"},
    {"jax", "jax", "JAX", "https://docs.jax.dev/en/latest/installation.html"},
    {"cupy", "cupy", "CuPy", "https://docs.cupy.dev/en/stable/install.html"},
};

std::string Text(const nlohmann::json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

const char* FrameworkProbeScript() { return kScript; }

FrameworkReport ParseFrameworkReport(const std::string& json_text) {
  FrameworkReport report;
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    report.outcome = FrameworkReport::Outcome::kUnreadable;
    return report;
  }
  report.outcome = FrameworkReport::Outcome::kRan;
  for (const Known& k : kKnown) {
    auto it = doc.find(k.key);
    if (it == doc.end() || !it->is_object()) continue;
    FrameworkInfo f;
    f.id = k.id;
    f.name = k.name;
    f.module = k.key;
    f.install_url = k.url;
    f.error = Text(*it, "error");
    f.version = Text(*it, "version");
    f.cuda = Text(*it, "cuda");
    f.archs = Text(*it, "archs");
    auto cpu = it->find("cpu_only");
    f.cpu_only = cpu != it->end() && cpu->is_boolean() && cpu->get<bool>();
    if (f.error.empty() && f.version.empty()) f.version = "?";
    report.found.push_back(std::move(f));
  }
  return report;
}

FrameworkReport ProbeFrameworks(const Environment& env) {
  auto run = env.Run({"python3", "-c", kScript}, kFrameworkProbeSeconds);
  FrameworkReport report;
  if (!run.ok()) return report;  // kNoPython
  if (run->timed_out) {
    report.outcome = FrameworkReport::Outcome::kTimedOut;
    return report;
  }
  // The report is one JSON line; frameworks may print banners of their own before it.
  FrameworkReport whole = ParseFrameworkReport(run->stdout_text);
  if (whole.outcome == FrameworkReport::Outcome::kRan) return whole;
  std::string text = run->stdout_text;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  auto newline = text.find_last_of('\n');
  return ParseFrameworkReport(newline == std::string::npos ? text : text.substr(newline + 1));
}

}  // namespace gpuprobe::doctor
