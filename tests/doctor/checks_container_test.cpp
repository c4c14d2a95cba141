// Container GPU passthrough (checks_container.cpp).
#include <gtest/gtest.h>

#include "doctor/fake_machine.h"

namespace gpuprobe::doctor {
namespace {

using testing::Arg;
using testing::FakeMachine;
using testing::NoNvml;
using testing::One;
using testing::Says;

TEST(Container, StartedWithoutGpusFailsWithTheRunFlag) {
  FakeMachine m("container-no-gpus");
  m.Set("NVIDIA_VISIBLE_DEVICES", "all");
  CheckResult r = One("container", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Says(r, "doctor.check.container.no_devices"));
  EXPECT_EQ(Arg(r, "visible"), "all");
  EXPECT_EQ(Arg(r, "marker"), "/.dockerenv");
  EXPECT_EQ(r.fix.key, "doctor.check.container.no_devices_fix");
}

TEST(Container, NoGpuAskedForIsInfoWithHowToAsk) {
  FakeMachine m("container-no-gpus");
  CheckResult r = One("container", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(r, "doctor.check.container.none_requested"));
  EXPECT_EQ(r.fix.key, "doctor.check.container.request_fix");
  m.Set("NVIDIA_VISIBLE_DEVICES", "void");
  r = One("container", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kInfo);
  EXPECT_TRUE(Says(r, "doctor.check.container.void"));
}

TEST(Container, PodmanAndKubernetesAreContainersToo) {
  FakeMachine podman;
  podman.Write("run/.containerenv", "");
  podman.Nodes({"nvidiactl", "nvidia0", "nvidia-uvm"});
  CheckResult r = One("container", podman.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kOk);
  EXPECT_EQ(Arg(r, "marker"), "/run/.containerenv");
  FakeMachine pod;
  pod.Set("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  pod.Set("NVIDIA_VISIBLE_DEVICES", "GPU-6d8b9c1e");
  EXPECT_EQ(One("container", pod.Env(), NoNvml()).status, CheckStatus::kFail);
}

TEST(Container, NotInAContainerSkips) {
  FakeMachine m("h200-node");
  CheckResult r = One("container", m.Env(), NoNvml());
  EXPECT_EQ(r.status, CheckStatus::kSkip);
  EXPECT_TRUE(Says(r, "doctor.check.container.not_container"));
}

}  // namespace
}  // namespace gpuprobe::doctor
