// A benchmark case's label in the user's language. Labels are data ("all threads", "1 core",
// "64 KiB", "stride 4", "n=1024, resident"): history matches runs by them and JSON keeps
// them as they are, so only views translate. A label is a comma-separated list of parts,
// each one of the forms the benchmarks build (bench/cpu/*.cpp, bench/cuda/*.cu); every form
// with words has a text "bench.case.<form>". Parts that are sizes, matrix orders, cache
// levels or names (OpenMP) read the same in every language and are kept.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "report/i18n.h"

namespace gpuprobe::report {

/// The label with each part translated; a part of no known form is kept as it is (a test
/// renders every label the CPU benchmarks make and the GPU label forms through it). English
/// texts return the label itself: labels are written in English.
std::string CaseLabelText(const std::string& label, const Texts& texts);

}  // namespace gpuprobe::report
