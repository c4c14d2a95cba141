#include "report/case_label.h"

#include <vector>

#include <re2/re2.h>

namespace gpuprobe::report {
namespace {

struct Form {
  const char* pattern;  ///< the whole part, with capture groups for its arguments
  const char* key;      ///< text "bench.case.<key>"; arguments {a}, {b} are the captures
};

// The label forms of the benchmarks, one per line; the order matters only where two forms
// could match the same part (none do).
const std::vector<Form>& Forms() {
  static const std::vector<Form> forms = {
      {R"(all threads)", "all_threads"},
      {R"(all cores)", "all_cores"},
      {R"(1 core)", "one_core"},
      {R"((\d+) threads?)", "threads"},
      {R"(all (\d+) SMs)", "all_sms"},
      {R"(stride (\d+))", "stride"},
      {R"(sequential)", "sequential"},
      {R"(random)", "random"},
      {R"(strided)", "strided"},
      {R"(misaligned)", "misaligned"},
      {R"((\d+)([KM]) elements)", "elements"},
      {R"(resident)", "resident"},
      {R"(with copies)", "with_copies"},
      {R"((\d+) paths?)", "paths"},
      {R"((\d+) calls)", "calls"},
      {R"((\d+) kernels)", "kernels"},
      {R"((\d+) streams?)", "streams"},
      {R"((.+ [KMGT]?i?B) per array)", "per_array"},
      {R"(on the device)", "on_device"},
      {R"(sync once)", "sync_once"},
      {R"(sync every step)", "sync_every_step"},
      {R"(round trip to the host every step)", "host_round_trip"},
      {R"((\w+) FMA)", "op_fma"},
      {R"((\w+) multiply-add)", "op_multiply_add"},
      {R"((\w+) divide)", "op_divide"},
      {R"(fast accumulation)", "fast_accumulation"},
      {R"((\w+) promotion)", "promotion"},
  };
  return forms;
}

std::string Part(const std::string& part, const Texts& texts) {
  for (const Form& form : Forms()) {
    // At most two captures in any form; absent ones stay empty.
    RE2 re(form.pattern);
    std::string a, b;
    int groups = re.NumberOfCapturingGroups();
    bool hit = groups >= 2 ? RE2::FullMatch(part, re, &a, &b) : groups == 1 ? RE2::FullMatch(part, re, &a) : RE2::FullMatch(part, re);
    if (!hit) continue;
    return Tr(texts, std::string("bench.case.") + form.key, fmt::arg("a", a), fmt::arg("b", b));
  }
  return part;  // a size ("64 KiB"), an order ("n=1024"), a duration ("60 s"), a name ("OpenMP")
}

}  // namespace

std::string CaseLabelText(const std::string& label, const Texts& texts) {
  // The labels are English data: an English view shows them as they are.
  if (texts.language() == Language::kEn) return label;
  std::string out;
  size_t start = 0;
  while (start <= label.size()) {
    size_t comma = label.find(", ", start);
    std::string part = label.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!out.empty()) out += texts.Get("bench.case.separator");
    out += Part(part, texts);
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

}  // namespace gpuprobe::report
