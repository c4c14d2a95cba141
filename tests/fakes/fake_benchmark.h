// A benchmark instance with scripted durations and results, and a fake clock: the runner's
// statistics and stopping rules are tested without timing anything.
#pragma once

#include <vector>

#include "bench/benchmark.h"

namespace gpuprobe::testing {

class FakeInstance : public bench::BenchmarkInstance {
 public:
  explicit FakeInstance(std::vector<double> durations, bool verified = true)
      : durations_(std::move(durations)), verified_(verified) {}

  core::Result<double> RunOnce() override {
    if (fail_at_ >= 0 && calls_ == fail_at_) return core::Status::Internal("scripted failure");
    double d = durations_[static_cast<size_t>(calls_) % durations_.size()];
    ++calls_;
    fake_now_ += d;
    return d;
  }
  bench::Verification Verify() override {
    bench::Verification v;
    v.verified = verified_;
    v.detail = verified_ ? "scripted ok" : "scripted wrong";
    v.checksum = 42;
    return v;
  }
  int calls() const { return calls_; }
  double now() const { return fake_now_; }
  void FailAt(int call) { fail_at_ = call; }

 private:
  std::vector<double> durations_;
  bool verified_;
  int calls_ = 0;
  int fail_at_ = -1;
  double fake_now_ = 0;
};

}  // namespace gpuprobe::testing
