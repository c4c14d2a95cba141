// Memory health: ECC error counts, page retirement (Pascal/Volta/Turing) and row remapping
// (Ampere and newer). Thresholds follow DCGM's health watches (github.com/NVIDIA/DCGM,
// modules/health/DcgmHealthWatch.cpp): any volatile double-bit error fails, 63 or more retired pages fail, 512 or more rows remapped for uncorrectable errors
// warn, a remap failure fails.
#include "telemetry/findings_rules.h"

namespace gpuprobe::telemetry::rules {
namespace {

constexpr double kRetiredPagesLimit = 63;          // DCGM: retired pages total >= 63 -> fail
constexpr double kUncorrectableRemapsWarn = 512;   // DCGM: uncorrectable remapped rows >= 512 -> warn

bool Yes(const std::optional<bool>& v) { return v && *v; }

void CheckEcc(Judge& j) {
  const Snapshot& s = j.s;
  // With ECC off (GeForce cards have none; a datacenter card can have it disabled) the driver
  // counts no memory errors: the rules have nothing to judge, and that is not a gap in the data.
  const std::string why = s.ecc_enabled && !*s.ecc_enabled ? "ecc_off" : "";
  if (!s.ecc_uncorrected_volatile) {
    j.NotJudged("ecc_uncorrectable", {"ecc.errors.uncorrected.volatile.total"}, why);
  } else if (*s.ecc_uncorrected_volatile > 0) {
    Finding& f = j.Raise("ecc_uncorrectable", Severity::kFail);
    Arg(&f, "count", Whole(*s.ecc_uncorrected_volatile));
    j.Use(&f, "ecc.errors.uncorrected.volatile.total");
    j.Show(&f, "ecc.errors.uncorrected.aggregate.total");
    j.Show(&f, "ecc.mode.current");
  }
  bool volatile_errors = s.ecc_uncorrected_volatile && *s.ecc_uncorrected_volatile > 0;
  if (!s.ecc_uncorrected_aggregate) {
    if (!volatile_errors) j.NotJudged("ecc_uncorrectable_history", {"ecc.errors.uncorrected.aggregate.total"}, why);
  } else if (*s.ecc_uncorrected_aggregate > 0 && !volatile_errors) {
    Finding& f = j.Raise("ecc_uncorrectable_history", Severity::kWarn);
    Arg(&f, "count", Whole(*s.ecc_uncorrected_aggregate));
    j.Use(&f, "ecc.errors.uncorrected.aggregate.total");
    j.Use(&f, "ecc.errors.uncorrected.volatile.total");
    j.Show(&f, "retired_pages.dbe");
  }
  // Corrected errors: ECC did its job; a count that keeps rising predicts uncorrectable ones.
  std::optional<double> corrected = s.ecc_corrected_aggregate;
  if (s.ecc_corrected_volatile && (!corrected || *s.ecc_corrected_volatile > *corrected)) corrected = s.ecc_corrected_volatile;
  if (!corrected) {
    j.NotJudged("ecc_corrected", {"ecc.errors.corrected.aggregate.total", "ecc.errors.corrected.volatile.total"}, why);
  } else if (*corrected > 0) {
    Finding& f = j.Raise("ecc_corrected", Severity::kInfo);
    Arg(&f, "count", Whole(*corrected));
    j.Show(&f, "ecc.errors.corrected.aggregate.total");
    j.Show(&f, "ecc.errors.corrected.volatile.total");
    j.Show(&f, "retired_pages.sbe");
  }
  // Hopper and newer only: SRAM uncorrectable errors past the board's threshold.
  if (Yes(s.ecc_sram_threshold_exceeded)) {
    Finding& f = j.Raise("ecc_sram_threshold_exceeded", Severity::kFail);
    j.Use(&f, "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded");
    j.Show(&f, "ecc.errors.uncorrected.aggregate.total");
  }
}

void CheckRepairs(Judge& j) {
  const Snapshot& s = j.s;
  bool remap_known = s.remapped_rows_pending || s.remapped_rows_failure || s.remapped_rows_correctable || s.remapped_rows_uncorrectable;
  bool retire_known = s.retired_pages_pending || s.retired_pages_sbe || s.retired_pages_dbe;
  if (!remap_known && !retire_known && !s.repair_pending_other) {
    j.NotJudged("memory_repair_pending", {"remapped_rows.pending", "retired_pages.pending"});
    return;
  }
  if (Yes(s.remapped_rows_failure)) {
    Finding& f = j.Raise("row_remap_failure", Severity::kFail);
    j.Use(&f, "remapped_rows.failure");
    j.Show(&f, "remapped_rows.uncorrectable");
    j.Show(&f, "remapped_rows.correctable");
  }
  double rows_unc = s.remapped_rows_uncorrectable.value_or(0), rows_corr = s.remapped_rows_correctable.value_or(0);
  bool rows_pending = Yes(s.remapped_rows_pending), pages_pending = Yes(s.retired_pages_pending), other_pending = Yes(s.repair_pending_other);
  if (rows_pending || pages_pending || other_pending) {
    Finding& f = j.Raise("memory_repair_pending", Severity::kWarn);
    f.variant = rows_pending ? "rows" : pages_pending ? "pages" : "other";
    Arg(&f, "rows_uncorrectable", Whole(rows_unc));
    Arg(&f, "rows_correctable", Whole(rows_corr));
    Arg(&f, "pages", Whole(s.retired_pages_sbe.value_or(0) + s.retired_pages_dbe.value_or(0)));
    if (rows_pending) {
      j.Use(&f, "remapped_rows.pending");
      j.Use(&f, "remapped_rows.uncorrectable");
      j.Use(&f, "remapped_rows.correctable");
    }
    if (pages_pending) {
      j.Use(&f, "retired_pages.pending");
      j.Show(&f, "retired_pages.sbe");
      j.Show(&f, "retired_pages.dbe");
    }
    if (other_pending) j.Use(&f, "repair.pending");
  } else if (!Yes(s.remapped_rows_failure) && rows_unc + rows_corr > 0) {
    // Rows already remapped and in effect: spare rows were used, the repair is done.
    Finding& f = j.Raise("rows_remapped", rows_unc >= kUncorrectableRemapsWarn ? Severity::kWarn : Severity::kInfo);
    Arg(&f, "rows_uncorrectable", Whole(rows_unc));
    Arg(&f, "rows_correctable", Whole(rows_corr));
    j.Use(&f, "remapped_rows.uncorrectable");
    j.Use(&f, "remapped_rows.correctable");
    j.Use(&f, "remapped_rows.pending");
  }
  double pages = s.retired_pages_sbe.value_or(0) + s.retired_pages_dbe.value_or(0);
  if (pages > 0) {
    Finding& f = j.Raise("retired_pages", pages >= kRetiredPagesLimit ? Severity::kFail : Severity::kWarn);
    if (pages >= kRetiredPagesLimit) f.variant = "limit";
    Arg(&f, "sbe", Whole(s.retired_pages_sbe.value_or(0)));
    Arg(&f, "dbe", Whole(s.retired_pages_dbe.value_or(0)));
    Arg(&f, "total", Whole(pages));
    j.Use(&f, "retired_pages.sbe");
    j.Use(&f, "retired_pages.dbe");
    j.Show(&f, "retired_pages.pending");
  }
}

}  // namespace

void CheckMemoryHealth(Judge& judge) {
  CheckEcc(judge);
  CheckRepairs(judge);
}

}  // namespace gpuprobe::telemetry::rules
