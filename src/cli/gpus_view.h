// Views of the spec database for `gpuprobe gpus`: JSON (SI base units, unit in the key) and
// the terminal renderings of list, show, compare and task selection.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gpu_link.h"
#include "model/gpu_selection.h"
#include "model/spec_database.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// One GPU in SI units: memory_bandwidth_bytes_per_s (the figure predictions use),
/// memory_bytes, memory_total_bytes, fp32_flops, bf16_tensor_dense_flops, tdp_watts,
/// interconnect, ... null when unknown, listed in "not_applicable" when the hardware has no
/// such unit; derived figures beside the vendor's (gpus_json.cpp).
nlohmann::json GpuToJson(const model::GpuSpec& gpu, const report::Texts& texts);
/// The figures every verb states about a GPU (memory total and usable, bandwidth, peaks, PCIe,
/// its GPU-to-GPU link): the consistency test compares them across verbs.
nlohmann::json GpuFiguresJson(const model::GpuSpec& gpu, const report::Texts& texts);
/// A GPU-to-GPU link: kind, name, NVLink generation, bytes/s per direction, GPUs it joins.
nlohmann::json LinkJson(const model::GpuSpec& gpu, const model::GpuLink& link, const report::Texts& texts);

/// What a healthy card of this kind measures (app/healthy_card.h), for `gpus show --json`:
/// [{id, benchmark, unit, peak, low_share, high_share, low, high, published, source}].
nlohmann::json HealthyFiguresJson(const model::GpuSpec& gpu);

/// The same figures in brief, for `plan --gpu`: a heading, one line per figure (its range or
/// expected value) and where the sources and when to worry are shown (`gpus show NAME`).
std::string RenderHealthyBrief(const model::GpuSpec& gpu, const report::Texts& texts);

std::string RenderGpuList(const model::SpecDatabase& db, const report::Texts& texts);
std::string RenderGpuShow(const model::GpuSpec& gpu, const report::Texts& texts);
std::string RenderGpuCompare(const std::vector<const model::GpuSpec*>& gpus, const report::Texts& texts);
/// `gpus --task`: the reference job, the picks by the task's criterion and by cost
/// (gpus_task_view.cpp).
std::string RenderTask(const model::TaskResult& result, const report::Texts& texts);
nlohmann::json TaskToJson(const model::TaskResult& result, const report::Texts& texts);
std::string RenderHostLinks(const model::SpecDatabase& db, const report::Texts& texts);

}  // namespace gpuprobe::cli
