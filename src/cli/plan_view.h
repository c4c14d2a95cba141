// Views of a capacity plan (app/plan_report.h) for `gpuprobe plan`: JSON (the keys docs/plan.md documents)
// and the terminal rendering (plan_view.cpp: model, memory and fit; plan_speed_view.cpp:
// capacity, serving, speed and communication; plan_options_view.cpp: ways to make it fit,
// traffic sizing and cost).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/plan_report.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

using app::PlanCost;
using app::PlanFit;
using app::PlanReport;

/// The gpuprobe.plan.v1 document (docs/plan.md, 'JSON'); plan_json.cpp. Texts (formulas,
/// notes, reasons) are worded from `texts`; ids stay stable.
nlohmann::json PlanToJson(const PlanReport& report, const report::Texts& texts);
/// How the weights are stored for the plan: "nf4" (QLoRA), "checkpoint" (bytes read from its
/// headers), the quantisation method of the config, else the dtype name.
std::string WeightStorage(const model::Job& job);
/// One note in the user's language ("plan.note.<id>" with {detail}).
std::string NoteText(const report::Texts& texts, const model::ShapeNote& note);
/// The note for a shape assumed from --params alone; empty when the shape was given.
std::string AssumedShapeText(const report::Texts& texts, const model::ModelShape& shape);
std::string RenderPlan(const PlanReport& report, const report::Texts& texts);

// Sections of RenderPlan, each in its own file.
std::string RenderSpeed(const PlanReport& report, const report::Texts& texts);      ///< plan_speed_view.cpp
std::string RenderOptions(const PlanReport& report, const report::Texts& texts);    ///< plan_options_view.cpp
std::string RenderTraffic(const PlanReport& report, const report::Texts& texts);    ///< plan_options_view.cpp
std::string RenderCost(const PlanReport& report, const report::Texts& texts);       ///< plan_options_view.cpp
/// The speed of a training plan: step, tokens trained per second, a run's time; plan_training_view.cpp.
std::string RenderTrainingSpeed(const PlanReport& report, const report::Texts& texts);
/// The rental sweep (traffic without --gpu); plan_rental_view.cpp.
std::string RenderRental(const PlanReport& report, const report::Texts& texts);
/// The planned load's rental lines under the --gpu traffic section (priced: $/h, $ per 1M
/// tokens; always: p99 queueing wait, N+1); empty when not feasible. plan_rental_view.cpp.
std::string RenderRentalLines(const app::RentalFigures& figures, const report::Texts& texts);
/// One GPU's rental figures and the sweep as JSON (docs/plan.md, 'JSON'); plan_rental_view.cpp.
nlohmann::json RentalJson(const app::RentalFigures& figures);
nlohmann::json RentalSweepJson(const app::RentalSweep& sweep);
/// The serving engine's budget, verdict, command line and log lines (empty without one).
std::string RenderEngine(const PlanReport& report, const report::Texts& texts);     ///< plan_engine_view.cpp
/// The "engine" object of the plan's JSON (null without one); plan_engine_view.cpp.
nlohmann::json EngineJson(const PlanReport& report, const report::Texts& texts);
/// --from-log: the engine's logged budget, its checks, logged vs predicted, the flags to change.
std::string RenderFromLog(const PlanReport& report, const report::Texts& texts);  ///< plan_engine_view.cpp
nlohmann::json FromLogJson(const PlanReport& report, const report::Texts& texts);  ///< plan_engine_view.cpp

}  // namespace gpuprobe::cli
