// The generated host table (Linux errno from the kernel headers and glibc, Python's built-in
// exceptions) and explain's use of it when no entry recognises a text.
#include <gtest/gtest.h>

#include "doctor/error_analysis.h"
#include "doctor/host_errors.h"

namespace gpuprobe::doctor {
namespace {

const HostErrorTable& Table() {
  auto t = HostErrorTable::Embedded();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return **t;
}

TEST(HostErrors, TheTableHoldsEveryErrnoAndBuiltinException) {
  // asm-generic/errno-base.h and errno.h define 1..133 (Linux 6.1), with aliases.
  EXPECT_GE(Table().errnos().size(), 130u);
  const OsError* emfile = Table().ErrnoByName("EMFILE");
  ASSERT_NE(emfile, nullptr);
  EXPECT_EQ(emfile->number, 24);
  EXPECT_EQ(emfile->message, "Too many open files");  // glibc's strerror(24)
  EXPECT_FALSE(emfile->message_zh.empty());            // glibc's zh_CN catalogue
  EXPECT_EQ(Table().ErrnoByNumber(11)->name, "EAGAIN");  // the canonical name, not EWOULDBLOCK
  ASSERT_NE(Table().PythonByName("ModuleNotFoundError"), nullptr);
  EXPECT_EQ(Table().PythonByName("ModuleNotFoundError")->base, "ImportError");
}

TEST(HostErrors, ReadsTheErrnoByItsGrammar) {
  auto python = Table().Find("OSError: [Errno 24] Too many open files: '/data/img.jpg'");
  ASSERT_TRUE(python);
  EXPECT_EQ(python->os->name, "EMFILE");
  EXPECT_FALSE(python->os_by_message);
  EXPECT_TRUE(python->OsLeads());
  EXPECT_EQ(Table().Find("open failed, errno=28")->os->name, "ENOSPC");
  EXPECT_EQ(Table().Find("connect() failed: ECONNREFUSED")->os->name, "ECONNREFUSED");
  // An upper-case word that is no errno is not one.
  EXPECT_FALSE(Table().Find("ERROR EXIT ENGINE"));
}

TEST(HostErrors, RustsOsErrorAndAPythonOsErrorCarryTheErrno) {
  EXPECT_EQ(Table().Find("Unable to create temporary file: Read-only file system (os error 30)")->os->name, "EROFS");
  auto reset = Table().Find("ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))");
  ASSERT_TRUE(reset);
  EXPECT_TRUE(reset->python_carries_errno);  // ConnectionError derives from OSError
  EXPECT_TRUE(reset->OsLeads());
  EXPECT_EQ(reset->os->name, "ECONNRESET");
}

TEST(HostErrors, AMessageAloneYieldsToThePythonException) {
  auto h = Table().Find("Traceback (most recent call last):\n  File \"x.py\", line 1\nImportError: libGL.so.1: cannot open shared object file: No such file or directory\n");
  ASSERT_TRUE(h);
  ASSERT_NE(h->python, nullptr);
  EXPECT_EQ(h->python->name, "ImportError");
  ASSERT_NE(h->os, nullptr);
  EXPECT_EQ(h->os->name, "ENOENT");
  EXPECT_TRUE(h->os_by_message);
  EXPECT_FALSE(h->OsLeads());
  EXPECT_FALSE(Table().Find("all good here"));
}

TEST(HostErrors, ExplainUsesThemOnlyWhereNothingElseAndNoGpuWord) {
  auto matcher = ErrorMatcher::Embedded();
  ASSERT_TRUE(matcher.ok());
  auto plain = Analyze(**matcher, "OSError: [Errno 24] Too many open files\n", AnalysisMode::kPaste);
  ASSERT_EQ(plain.hits.size(), 1u);
  EXPECT_EQ(plain.hits[0].finding.key, "os_error:EMFILE");
  EXPECT_FALSE(IsGpuFinding(plain.hits[0].finding));
  // A text that names the GPU stack is never said to be a host error.
  auto gpu = Analyze(**matcher, "nvidia container hook: Too many open files\n", AnalysisMode::kPaste);
  for (const auto& h : gpu.hits) EXPECT_FALSE(h.finding.host.has_value()) << h.finding.key;
  // A hand-written entry wins over the generic reading.
  auto disk = Analyze(**matcher, "OSError: [Errno 28] No space left on device\n", AnalysisMode::kPaste);
  ASSERT_FALSE(disk.hits.empty());
  EXPECT_EQ(disk.hits[0].finding.key, "disk_full");
}

}  // namespace
}  // namespace gpuprobe::doctor
