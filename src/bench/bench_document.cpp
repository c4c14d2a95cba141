#include "bench/bench_document.h"

#include <cmath>

#include <fmt/format.h>

#include "bench/normal_ranges.h"
#include "core/version.h"

namespace gpuprobe::bench {
namespace {

using nlohmann::json;

json OptionalNumber(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }
json PositiveOrNull(double value) { return value > 0 ? json(value) : json(nullptr); }

// Reads the fields of one JSON object, naming "<label>: <path>.<key>" in every error, so a
// user who edited a saved run by hand learns exactly which value is wrong.
class FieldReader {
 public:
  FieldReader(const json& object, std::string label, std::string path)
      : object_(object), label_(std::move(label)), path_(std::move(path)) {}

  core::Status status() const { return status_; }

  std::string String(const char* key, bool required = false) {
    const json* v = Find(key, required);
    if (v == nullptr || (!required && v->is_null())) return {};
    if (!v->is_string()) return Fail(key, "not_string", "must be a string"), std::string();
    return v->get<std::string>();
  }

  bool Bool(const char* key, bool required = false) {
    const json* v = Find(key, required);
    if (v == nullptr) return false;
    if (!v->is_boolean()) return Fail(key, "not_bool", "must be true or false"), false;
    return v->get<bool>();
  }

  /// A finite number in [min, max]; null reads as empty when `nullable`.
  std::optional<double> Number(const char* key, double min, double max, bool required = false, bool nullable = true) {
    const json* v = Find(key, required);
    if (v == nullptr || (nullable && v->is_null())) return std::nullopt;
    if (!v->is_number()) return Fail(key, nullable ? "not_number_or_null" : "not_number", nullable ? "must be a number or null" : "must be a number"), std::nullopt;
    double d = v->get<double>();
    if (!std::isfinite(d) || d < min || d > max) {
      return Fail(key, "outside", fmt::format("is {}, outside [{:g}, {:g}]", d, min, max),
                  {{"value", fmt::format("{}", d)}, {"min", fmt::format("{:g}", min)}, {"max", fmt::format("{:g}", max)}}), std::nullopt;
    }
    return d;
  }

  /// An integer count in [0, max] (JSON numbers are doubles: reject fractions and overflow).
  std::uint64_t Count(const char* key, double max) {
    auto d = Number(key, 0, max);
    if (!d) return 0;
    if (std::floor(*d) != *d) return Fail(key, "not_whole", "must be a whole number"), 0;
    return static_cast<std::uint64_t>(*d);
  }

  const json* Object(const char* key) {
    const json* v = Find(key, false);
    if (v != nullptr && !v->is_object()) return Fail(key, "field_not_object", "must be an object"), nullptr;
    return v;
  }

  std::string Path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  const json* Find(const char* key, bool required) {
    if (!status_.ok()) return nullptr;
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) Fail(key, "missing", "is missing");
      return nullptr;
    }
    return &*it;
  }

  // `problem` names the text (error.bench_doc.<problem>, with {file}, {field} and `args`);
  // `what` is the same in English for the message.
  void Fail(const char* key, const char* problem, const std::string& what, core::MessageArgs args = {}) {
    if (!status_.ok()) return;
    args.emplace_back("file", label_);
    args.emplace_back("field", Path(key));
    status_ = core::Status::ParseError(fmt::format("{}: {} {}", label_, Path(key), what))
                  .WithKeys(std::string("error.bench_doc.") + problem, std::move(args));
  }

  const json& object_;
  std::string label_, path_;
  core::Status status_;
};

constexpr double kMaxCount = 1e15;      // sizes, samples, threads: far above any real run
constexpr double kMaxValue = 1e30;      // rates in SI units stay far below this

core::Result<model::CpuSpec> CpuSpecFromJson(const json& j, const std::string& label) {
  model::CpuSpec cpu;
  FieldReader f(j, label, "machine.cpu");
  cpu.model_name = f.String("model");
  cpu.vendor = f.String("vendor");
  cpu.family = static_cast<int>(f.Count("family", 1e6));
  cpu.model_number = static_cast<int>(f.Count("model_number", 1e6));
  cpu.physical_cores = static_cast<int>(std::max<std::uint64_t>(1, f.Count("physical_cores", 1e6)));
  cpu.logical_cpus = static_cast<int>(std::max<std::uint64_t>(1, f.Count("logical_cpus", 1e6)));
  cpu.sockets = static_cast<int>(std::max<std::uint64_t>(1, f.Count("sockets", 1e4)));
  cpu.numa_nodes = static_cast<int>(std::max<std::uint64_t>(1, f.Count("numa_nodes", 1e4)));
  cpu.max_clock_hz = f.Number("clock_max_hz", 0, 1e11).value_or(0);
  cpu.measured_clock_hz = f.Number("clock_under_load_hz", 0, 1e11).value_or(0);
  cpu.l1d_bytes = f.Count("l1d_bytes", kMaxCount);
  cpu.l2_bytes = f.Count("l2_bytes", kMaxCount);
  cpu.l3_bytes = f.Count("l3_bytes", kMaxCount);
  cpu.l3_total_bytes = f.Count("l3_total_bytes", kMaxCount);
  cpu.memory_total_bytes = f.Count("memory_bytes", kMaxCount);
  cpu.dram_bandwidth_bytes_per_s = f.Number("dram_bandwidth_bytes_per_s", 0, kMaxValue);
  cpu.dram_basis = f.String("dram_basis");
  if (const json* flags = f.Object("isa_flags")) {
    FieldReader g(*flags, label, "machine.cpu.isa_flags");
    cpu.has_avx2 = g.Bool("avx2");
    cpu.has_fma = g.Bool("fma");
    cpu.has_avx512f = g.Bool("avx512f");
    cpu.has_avx512_bf16 = g.Bool("avx512_bf16");
    cpu.has_avx512_fp16 = g.Bool("avx512_fp16");
    cpu.has_amx = g.Bool("amx");
    cpu.has_neon = g.Bool("neon");
    GPUPROBE_RETURN_IF_ERROR(g.status());
  } else if (f.status().ok()) {
    // Documents from before the flags were written: the SIMD name says what the peak assumed.
    std::string simd = j.contains("simd") && j["simd"].is_string() ? j["simd"].get<std::string>() : "";
    cpu.has_avx512f = simd == "AVX-512";
    cpu.has_avx2 = cpu.has_fma = cpu.has_avx512f || simd == "AVX2+FMA";
    cpu.has_neon = simd == "NEON";
  }
  GPUPROBE_RETURN_IF_ERROR(f.status());
  return cpu;
}

core::Result<BenchResult> ResultFromJson(const json& j, const std::string& label, size_t index) {
  std::string path = fmt::format("results[{}]", index);
  if (!j.is_object()) return core::Status::ParseError(fmt::format("{}: {} must be an object", label, path))
      .WithKeys("error.bench_doc.not_object", {{"file", label}, {"field", path}});
  FieldReader f(j, label, path);
  BenchResult r;
  r.id = f.String("id", true);
  r.group = f.String("group");
  r.backend = f.String("backend", true);
  r.device = f.String("device");
  r.case_label = f.String("case");
  r.size = f.Count("size", 1e19);
  r.threads = static_cast<int>(f.Count("threads", 1e6));
  r.param = f.Number("param", -kMaxValue, kMaxValue).value_or(0);
  r.variant = f.String("variant");
  std::string metric = f.String("metric", true);
  r.claim = f.String("claim");
  r.title = f.String("title");
  r.skipped = f.Bool("skipped");
  r.skip_reason = f.String("skip_reason");
  r.error = f.String("error");
  auto value = f.Number("value", 0, kMaxValue, true);
  r.predicted = f.Number("predicted", 0, kMaxValue);
  r.prediction_basis = f.String("prediction_basis");
  r.prediction_is_anchor = f.String("prediction_kind") == "anchor";
  r.efficiency = f.Number("efficiency", 0, 1e6);
  r.verified = f.Bool("verified");
  r.verification_detail = f.String("verification");
  r.checksum = f.Number("checksum", -kMaxValue, kMaxValue).value_or(0);
  r.stats.median = f.Number("median_s", 0, 1e9).value_or(0);
  r.stats.best = f.Number("best_s", 0, 1e9).value_or(0);
  r.stats.p10 = f.Number("p10_s", 0, 1e9).value_or(0);
  r.stats.p90 = f.Number("p90_s", 0, 1e9).value_or(0);
  r.stats.count = static_cast<int>(f.Count("samples", 1e9));
  r.stats.noisy = f.Bool("noisy");
  if (r.stats.median > 0) r.stats.relative_spread = (r.stats.p90 - r.stats.p10) / r.stats.median;
  r.throttled = f.Bool("throttled");
  r.clock_hz = f.Number("clock_hz", 0, 1e11).value_or(0);
  r.note = f.String("note");
  if (const json* work = f.Object("work")) {
    FieldReader w(*work, label, path + ".work");
    r.work.bytes_read = w.Number("bytes_read", 0, kMaxValue).value_or(0);
    r.work.bytes_written = w.Number("bytes_written", 0, kMaxValue).value_or(0);
    r.work.flops = w.Number("flops", 0, kMaxValue).value_or(0);
    r.work.ops = w.Number("ops", 0, kMaxValue).value_or(0);
    r.work.items = w.Number("items", 0, kMaxValue).value_or(0);
    GPUPROBE_RETURN_IF_ERROR(w.status());
  }
  GPUPROBE_RETURN_IF_ERROR(f.status());
  auto parsed_metric = MetricFromName(metric);
  if (!parsed_metric) {
    return core::Status::ParseError(fmt::format("{}: {}.metric '{}' is not bandwidth, flops, ops or latency", label, path, metric))
        .WithKeys("error.bench_doc.metric", {{"file", label}, {"field", path}, {"value", metric}});
  }
  r.metric = *parsed_metric;
  if (r.id.empty()) return core::Status::ParseError(fmt::format("{}: {}.id is empty", label, path))
      .WithKeys("error.bench_doc.empty_id", {{"file", label}, {"field", path}});
  // A null value is a case that did not run: skipped, or failed with its error.
  if (value) {
    r.value = *value;
  } else if (!r.skipped && r.error.empty()) {
    r.error = "no value recorded";
  }
  if (r.group.empty()) r.group = r.id.substr(0, r.id.find('.'));
  return r;
}

}  // namespace

std::optional<Metric> MetricFromName(const std::string& name) {
  for (Metric m : {Metric::kBandwidth, Metric::kFlops, Metric::kOps, Metric::kLatency}) {
    if (name == MetricName(m)) return m;
  }
  return std::nullopt;
}

std::vector<const BenchResult*> BenchDocument::ResultsOf(const std::string& id, const std::string& backend) const {
  std::vector<const BenchResult*> out;
  for (const auto& r : results) {
    if (r.id == id && r.backend == backend) out.push_back(&r);
  }
  return out;
}

const BenchResult* BenchDocument::BestVerified(const std::string& id, const std::string& backend,
                                               const std::string& case_prefix) const {
  const bool group = !id.empty() && id.back() == '.';
  const BenchResult* best = nullptr;
  for (const auto& r : results) {
    if (r.backend != backend || !(group ? r.id.rfind(id, 0) == 0 : r.id == id)) continue;
    if (!case_prefix.empty() && r.case_label.rfind(case_prefix, 0) != 0) continue;
    if (!r.ok() || !r.verified || !std::isfinite(r.value) || r.value <= 0) continue;
    const bool better = best == nullptr || (r.metric == Metric::kLatency ? r.value < best->value : r.value > best->value);
    if (better) best = &r;
  }
  return best;
}

bool BenchDocument::HasBackend(const std::string& backend) const {
  for (const auto& r : results) {
    if (r.backend == backend && !r.skipped) return true;
  }
  return false;
}

json CpuSpecToJson(const model::CpuSpec& cpu) {
  model::VectorPipes pipes = model::FmaPipes(cpu);
  json j;
  j["model"] = cpu.model_name;
  j["vendor"] = cpu.vendor;
  j["family"] = cpu.family;
  j["model_number"] = cpu.model_number;
  j["physical_cores"] = cpu.physical_cores;
  j["logical_cpus"] = cpu.logical_cpus;
  j["sockets"] = cpu.sockets;
  j["numa_nodes"] = cpu.numa_nodes;
  j["simd"] = pipes.isa;
  j["isa_flags"] = {{"avx2", cpu.has_avx2},        {"fma", cpu.has_fma},     {"avx512f", cpu.has_avx512f},
                    {"avx512_bf16", cpu.has_avx512_bf16}, {"avx512_fp16", cpu.has_avx512_fp16},
                    {"amx", cpu.has_amx},          {"neon", cpu.has_neon}};
  j["fma_pipes_per_core"] = pipes.fma_pipes;
  j["fma_width_bits"] = pipes.width_bits;
  j["fma_basis"] = pipes.basis;
  j["clock_max_hz"] = PositiveOrNull(cpu.max_clock_hz);
  j["clock_under_load_hz"] = PositiveOrNull(cpu.measured_clock_hz);
  j["l1d_bytes"] = cpu.l1d_bytes;
  j["l2_bytes"] = cpu.l2_bytes;
  j["l3_bytes"] = cpu.l3_bytes;
  j["l3_total_bytes"] = cpu.l3_total_bytes;
  j["memory_bytes"] = cpu.memory_total_bytes;
  j["dram_bandwidth_bytes_per_s"] = OptionalNumber(cpu.dram_bandwidth_bytes_per_s);
  j["dram_basis"] = cpu.dram_basis;
  json peaks;
  for (const char* dtype : {"fp64", "fp32", "bf16"}) {
    peaks[std::string(dtype) + "_flops"] = OptionalNumber(model::CpuPeakFlops(cpu, dtype, cpu.physical_cores));
  }
  j["theoretical_peak"] = peaks;
  return j;
}

json BenchDocumentToJson(const BenchDocument& document, const TakeawayFunction& takeaway) {
  json doc;
  doc["schema"] = kBenchSchema;
  doc["gpuprobe_version"] = document.gpuprobe_version.empty() ? core::kVersion : document.gpuprobe_version;
  doc["machine"] = {{"cpu", CpuSpecToJson(document.cpu)}, {"gpus", document.gpus}};
  if (!document.gpu_absent_reason.empty()) doc["machine"]["gpu_absent_reason"] = document.gpu_absent_reason;
  doc["mode"] = document.full ? "full" : "quick";
  doc["wall_seconds"] = document.wall_seconds;
  doc["results"] = json::array();
  for (const auto& r : document.results) {
    json j;
    j["id"] = r.id;
    j["group"] = r.group;
    j["title"] = r.title;
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["case"] = r.case_label;
    j["size"] = r.size;
    j["threads"] = r.threads;
    j["param"] = r.param;
    j["variant"] = r.variant;
    j["metric"] = MetricName(r.metric);
    j["unit"] = MetricUnit(r.metric);
    j["claim"] = r.claim;
    j["skipped"] = r.skipped;
    if (r.skipped) j["skip_reason"] = r.skip_reason;
    if (!r.error.empty()) j["error"] = r.error;
    j["value"] = r.ok() ? json(r.value) : json(nullptr);
    j["predicted"] = OptionalNumber(r.predicted);
    j["prediction_basis"] = r.prediction_basis;
    j["prediction_kind"] = !r.predicted ? json(nullptr) : json(r.prediction_is_anchor ? "anchor" : "model");
    j["efficiency"] = OptionalNumber(r.efficiency);
    EfficiencyFlag flag = FlagEfficiency(r);
    j["efficiency_flag"] = flag == EfficiencyFlag::kNone ? json(nullptr) : json(EfficiencyFlagName(flag));
    // Derived on writing, never read back: what real systems reach, and the verdict.
    const NormalRange* range = FindNormalRange(r);
    j["normal_range"] = range == nullptr ? json(nullptr) : json{{"low", range->low}, {"high", range->high}, {"source", range->source}};
    EfficiencyVerdict verdict = JudgeEfficiency(r, range);
    j["efficiency_verdict"] = verdict == EfficiencyVerdict::kNone ? json(nullptr) : json(EfficiencyVerdictName(verdict));
    j["verified"] = r.verified;
    j["verification"] = r.verification_detail;
    j["checksum"] = r.checksum;
    j["median_s"] = r.stats.median;
    j["best_s"] = r.stats.best;
    j["p10_s"] = r.stats.p10;
    j["p90_s"] = r.stats.p90;
    j["samples"] = r.stats.count;
    j["noisy"] = r.stats.noisy;
    j["throttled"] = r.throttled;
    j["work"] = {{"bytes_read", r.work.bytes_read}, {"bytes_written", r.work.bytes_written}, {"flops", r.work.flops},
                 {"ops", r.work.ops}, {"items", r.work.items}};
    j["clock_hz"] = PositiveOrNull(r.clock_hz);
    j["note"] = r.note;
    if (takeaway) j["takeaway"] = takeaway(r);
    doc["results"].push_back(j);
  }
  return doc;
}

core::Result<BenchDocument> BenchDocumentFromJson(const json& j, const std::string& label) {
  if (!j.is_object()) return core::Status::ParseError(label + ": not a JSON object")
      .WithKeys("error.bench_doc.not_json_object", {{"file", label}});
  FieldReader f(j, label, "");
  auto schema_it = j.find("schema");
  if (schema_it == j.end() || !schema_it->is_string()) {
    return core::Status::ParseError(fmt::format("{}: not a gpuprobe bench document (no \"schema\" field)", label),
                                    "give a file written by 'gpuprobe bench --json'")
                                        .WithKeys("error.bench_doc.no_schema", {{"file", label}});
  }
  std::string schema = schema_it->get<std::string>();
  if (schema != kBenchSchema) {
    return core::Status::ParseError(fmt::format("{}: not a gpuprobe bench document: schema is '{}', not {}", label, schema, kBenchSchema),
                                    "give a file written by 'gpuprobe bench --json'")
                                        .WithKeys("error.bench_doc.schema", {{"file", label}, {"schema", schema}, {"expected", kBenchSchema}});
  }
  BenchDocument doc;
  doc.gpuprobe_version = f.String("gpuprobe_version");
  doc.full = f.String("mode") == "full";
  doc.wall_seconds = f.Number("wall_seconds", 0, 1e9).value_or(0);
  if (const json* machine = f.Object("machine")) {
    FieldReader m(*machine, label, "machine");
    if (const json* cpu = m.Object("cpu")) {
      GPUPROBE_ASSIGN_OR_RETURN(doc.cpu, CpuSpecFromJson(*cpu, label));
    }
    auto gpus = machine->find("gpus");
    if (gpus != machine->end()) {
      if (!gpus->is_array()) return core::Status::ParseError(label + ": machine.gpus must be an array of strings")
          .WithKeys("error.bench_doc.gpus", {{"file", label}});
      for (const auto& g : *gpus) {
        if (!g.is_string()) return core::Status::ParseError(label + ": machine.gpus must be an array of strings")
            .WithKeys("error.bench_doc.gpus", {{"file", label}});
        doc.gpus.push_back(g.get<std::string>());
      }
    }
    doc.gpu_absent_reason = m.String("gpu_absent_reason");
    GPUPROBE_RETURN_IF_ERROR(m.status());
  }
  GPUPROBE_RETURN_IF_ERROR(f.status());
  auto results = j.find("results");
  if (results == j.end() || !results->is_array()) {
    return core::Status::ParseError(label + ": results is missing or not an array")
        .WithKeys("error.bench_doc.results", {{"file", label}});
  }
  for (size_t i = 0; i < results->size(); ++i) {
    auto r = ResultFromJson((*results)[i], label, i);
    if (!r.ok()) return r.status();
    doc.results.push_back(std::move(r.value()));
  }
  return doc;
}

}  // namespace gpuprobe::bench
