#include "doctor/arch_compat.h"

#include <re2/re2.h>

#include <charconv>

namespace gpuprobe::doctor {
namespace {

bool ToInt(std::string_view text, int* value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

// Runs as machine code or JIT target: same major and minor >= the build's, except 'a' (exact).
bool SameFamily(const CompiledArch& a, int major, int minor) {
  if (a.major != major) return false;
  return a.variant == 'a' ? a.minor == minor : a.minor <= minor;
}

bool PtxUsable(const CompiledArch& a, int major, int minor) {
  if (a.variant == 'a' || a.variant == 'f') return SameFamily(a, major, minor);
  return a.major * 10 + a.minor <= major * 10 + minor;
}

}  // namespace

std::string CompiledArch::Name() const {
  std::string name = (ptx ? "compute_" : "sm_") + std::to_string(major * 10 + minor);
  if (variant != 0) name += variant;
  return name;
}

std::vector<CompiledArch> ParseArchList(std::string_view text) {
  // In nvcc flags, arch=compute_XY only names the virtual architecture used to produce the
  // code= targets; only code= lists what is embedded.
  static const RE2 kCode(R"(code=\[?([a-z0-9_,]+)\]?)");
  static const RE2 kArch(R"(\b(sm|compute)_(\d{2,3})([af]?)\b)");
  std::string scope;
  re2::StringPiece rest(text.data(), text.size());
  std::string targets;
  bool has_code = false;
  while (RE2::FindAndConsume(&rest, kCode, &targets)) {
    has_code = true;
    scope += targets + " ";
  }
  if (!has_code) scope = std::string(text);
  for (char& c : scope) {
    if (c == ',' || c == ';' || c == '[' || c == ']' || c == '\'' || c == '"') c = ' ';
  }
  std::vector<CompiledArch> out;
  re2::StringPiece input(scope);
  std::string kind, number, variant;
  while (RE2::FindAndConsume(&input, kArch, &kind, &number, &variant)) {
    int n = 0;
    if (!ToInt(number, &n)) continue;
    CompiledArch a;
    a.major = n / 10;
    a.minor = n % 10;
    a.ptx = kind == "compute";
    a.variant = variant.empty() ? 0 : variant[0];
    bool seen = false;
    for (const auto& b : out) seen = seen || b.Name() == a.Name();
    if (!seen) out.push_back(a);
  }
  return out;
}

ArchVerdict MatchArch(const std::vector<CompiledArch>& archs, int cc_major, int cc_minor) {
  const CompiledArch* best_sass = nullptr;
  const CompiledArch* best_ptx = nullptr;
  for (const auto& a : archs) {
    if (!a.ptx && SameFamily(a, cc_major, cc_minor) &&
        (best_sass == nullptr || a.minor > best_sass->minor))
      best_sass = &a;
    if (a.ptx && PtxUsable(a, cc_major, cc_minor) &&
        (best_ptx == nullptr || a.major * 10 + a.minor > best_ptx->major * 10 + best_ptx->minor)) {
      best_ptx = &a;
    }
  }
  if (best_sass != nullptr) return {ArchMatch::kMachineCode, best_sass->Name()};
  if (best_ptx != nullptr) return {ArchMatch::kPtxJit, best_ptx->Name()};
  return {ArchMatch::kNone, ""};
}

bool ParseComputeCapability(const std::string& text, int* major, int* minor) {
  auto dot = text.find('.');
  if (dot == std::string::npos) return false;
  return ToInt(std::string_view(text).substr(0, dot), major) &&
         ToInt(std::string_view(text).substr(dot + 1), minor) && *minor >= 0 && *minor <= 9;
}

}  // namespace gpuprobe::doctor
