// Clocks and heat: clock-event ("throttle") reasons and the distance to the slowdown
// temperature. The reasons are NVML's bits (nvmlClocksEventReasons): the idle bit is normal,
// the software power cap is normal under full load, the hardware bits and the software
// thermal bit are the GPU cutting its clocks to protect itself.
//
// The slowdown point comes as an absolute threshold ("GPU Slowdown Temp: 90 C") or, from
// R525 on, as T.Limit values: "GPU T.Limit Temp" is the margin left before the maximum
// operating temperature and falls as the GPU heats, and "GPU Slowdown T.Limit Temp: -2 C"
// is the margin at which hardware slowdown engages (NVIDIA NVSentinel runbook "GPU Thermal
// Margin": slowdown when the margin drops below the slowdown T.Limit). So the distance to
// slowdown is T.Limit minus the slowdown T.Limit, and a negative T.Limit is past the maximum
// operating temperature, not a negative temperature.
#include <cmath>

#include "telemetry/findings_rules.h"

namespace gpuprobe::telemetry::rules {
namespace {

constexpr std::uint64_t kProtectiveBits =
    clock_event::kHwSlowdown | clock_event::kHwThermal | clock_event::kHwPowerBrake | clock_event::kSwThermal;
constexpr std::uint64_t kThermalBits = clock_event::kHwThermal | clock_event::kSwThermal;
constexpr double kNearDegrees = 5;        // "near": within this many degrees of slowdown
constexpr double kFarFromHotDegrees = 20; // a thermal bit this far below slowdown is not the GPU's own heat

// nvidia-smi's own names for the bits.
std::string ReasonNames(std::uint64_t bits) {
  struct Name {
    std::uint64_t bit;
    const char* name;
  };
  static const Name kNames[] = {{clock_event::kHwSlowdown, "HW Slowdown"},
                                {clock_event::kHwThermal, "HW Thermal Slowdown"},
                                {clock_event::kHwPowerBrake, "HW Power Brake Slowdown"},
                                {clock_event::kSwThermal, "SW Thermal Slowdown"},
                                {clock_event::kSwPowerCap, "SW Power Cap"}};
  std::string out;
  for (const auto& n : kNames) {
    if (bits & n.bit) out += (out.empty() ? "" : ", ") + std::string(n.name);
  }
  return out;
}

struct Margin {
  double degrees;                   ///< left before slowdown; negative = past it
  std::optional<double> threshold;  ///< the slowdown point in C, where it can be known
  const char* basis;                ///< text variant: "threshold", "tlimit", "max_operating"
};

std::optional<Margin> SlowdownMargin(const Snapshot& s) {
  if (s.temperature_celsius && s.temperature_slowdown_celsius) {
    return Margin{*s.temperature_slowdown_celsius - *s.temperature_celsius, s.temperature_slowdown_celsius, "threshold"};
  }
  if (s.temperature_margin_celsius && s.temperature_slowdown_tlimit_celsius) {
    double degrees = *s.temperature_margin_celsius - *s.temperature_slowdown_tlimit_celsius;
    std::optional<double> threshold;
    if (s.temperature_celsius) threshold = *s.temperature_celsius + degrees;
    return Margin{degrees, threshold, "tlimit"};
  }
  if (s.temperature_margin_celsius) {
    // Only the margin to the maximum operating temperature is known (CSV's
    // temperature.gpu.tlimit): the GPU starts to lower its clocks from there.
    std::optional<double> threshold;
    if (s.temperature_celsius) threshold = *s.temperature_celsius + *s.temperature_margin_celsius;
    return Margin{*s.temperature_margin_celsius, threshold, "max_operating"};
  }
  return std::nullopt;
}

void CheckReasons(Judge& j) {
  const Snapshot& s = j.s;
  if (!s.clock_event_reasons) {
    j.NotJudged("thermal_or_power_throttling", {"clocks_event_reasons.active"});
    return;
  }
  std::uint64_t bits = *s.clock_event_reasons;
  if (std::uint64_t protective = bits & kProtectiveBits) {
    Finding& f = j.Raise("thermal_or_power_throttling", Severity::kWarn);
    Arg(&f, "reasons", ReasonNames(protective));
    j.Use(&f, "clocks_event_reasons.active");
    j.Use(&f, "utilization.gpu");
    j.Show(&f, "temperature.gpu");
    j.Show(&f, "power.draw");
    j.Show(&f, "power.limit");
    j.Show(&f, "clocks.current.sm");
    j.Show(&f, "clocks.max.sm");
    if (IsIdle(s).value_or(false)) {
      Arg(&f, "util", Whole(*s.utilization_gpu_percent));
      f.notes.push_back("throttle_while_idle");
    }
    auto margin = SlowdownMargin(s);
    if ((protective & kThermalBits) && margin && margin->degrees >= kFarFromHotDegrees && s.temperature_celsius) {
      Arg(&f, "temp", Whole(*s.temperature_celsius));
      Arg(&f, "margin", Whole(margin->degrees));
      f.notes.push_back("thermal_bit_but_cool");
    }
    if (protective & clock_event::kHwPowerBrake) {
      Arg(&f, "power", s.power_draw_watts ? Whole(*s.power_draw_watts) : "?");
      Arg(&f, "limit", s.power_limit_watts ? Whole(*s.power_limit_watts) : "?");
      f.notes.push_back("power_brake_external");
    }
    return;
  }
  if (bits & clock_event::kSwPowerCap) {
    auto busy = IsBusy(s);
    if (!busy) {
      j.NotJudged("power_capped", {"utilization.gpu"});
    } else if (*busy) {
      Finding& f = j.Raise("power_capped", Severity::kInfo);
      Arg(&f, "util", Whole(*s.utilization_gpu_percent));
      Arg(&f, "power", s.power_draw_watts ? Whole(*s.power_draw_watts) : "?");
      Arg(&f, "limit", s.power_limit_watts ? Whole(*s.power_limit_watts) : "?");
      j.Use(&f, "clocks_event_reasons.active");
      j.Use(&f, "utilization.gpu");
      j.Use(&f, "power.draw");
      j.Use(&f, "power.limit");
    }
    // The power-cap bit on an idle consumer card at a few watts is how those boards report
    // idle (seen in GTX 1060/1080 Ti, RTX 2080 Ti and 3090 captures): not a finding.
  }
}

void CheckTemperature(Judge& j) {
  const Snapshot& s = j.s;
  auto margin = SlowdownMargin(s);
  if (!margin) {
    j.NotJudged("near_thermal_slowdown", {"temperature.gpu", "temperature.gpu.slowdown_threshold", "temperature.gpu.tlimit"});
    return;
  }
  if (margin->degrees > kNearDegrees) return;
  bool past = margin->degrees <= 0;
  Finding& f = j.Raise(past ? "thermal_slowdown_reached" : "near_thermal_slowdown", Severity::kWarn);
  f.variant = margin->basis;
  Arg(&f, "temp", s.temperature_celsius ? Whole(*s.temperature_celsius) : "?");
  Arg(&f, "threshold", margin->threshold ? Whole(*margin->threshold) : "?");
  Arg(&f, "margin", Whole(std::abs(margin->degrees)));
  Arg(&f, "tlimit", s.temperature_margin_celsius ? Whole(*s.temperature_margin_celsius) : "?");
  Arg(&f, "slowdown_tlimit", s.temperature_slowdown_tlimit_celsius ? Whole(*s.temperature_slowdown_tlimit_celsius) : "?");
  j.Use(&f, "temperature.gpu");
  if (std::string(margin->basis) == "threshold") {
    j.Use(&f, "temperature.gpu.slowdown_threshold");
  } else {
    j.Use(&f, "temperature.gpu.tlimit");
    if (std::string(margin->basis) == "tlimit") j.Use(&f, "temperature.gpu.slowdown_tlimit");
  }
  // Do the throttle reasons confirm it?
  j.Use(&f, "clocks_event_reasons.active");
  if (!s.clock_event_reasons) {
    f.notes.push_back("thermal_unconfirmed_no_reasons");
  } else if (std::uint64_t thermal = *s.clock_event_reasons & kThermalBits) {
    Arg(&f, "reasons", ReasonNames(thermal));
    f.notes.push_back("thermal_confirmed");
  } else {
    f.notes.push_back(past ? "thermal_past_not_confirmed" : "thermal_near_not_yet");
  }
}

}  // namespace

void CheckClocksAndHeat(Judge& judge) {
  CheckReasons(judge);
  CheckTemperature(judge);
  // A fan the driver cannot read: on a board with fans, a failed fan or tachometer.
  if (judge.s.fan_speed_error) {
    Finding& f = judge.Raise("fan_reading_error", Severity::kWarn);
    judge.Use(&f, "fan.speed");
    judge.Show(&f, "temperature.gpu");
  }
}

}  // namespace gpuprobe::telemetry::rules
