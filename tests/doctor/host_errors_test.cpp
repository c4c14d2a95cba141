// The generated host table (Linux errno from the kernel headers and glibc, Python's built-in
// exceptions) and explain's use of it when no entry recognises a text.
#include <gtest/gtest.h>

#include "doctor/error_analysis.h"
#include "doctor/host_errors.h"

namespace gpuprobe::doctor {
namespace {

const ErrorMatcher& M() {
  auto m = ErrorMatcher::Embedded();
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return **m;
}

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

// The standard library's exceptions come with their module; a SyntaxError is read from the
// traceback's shape when its last line was cut off; a traceback is judged on its own, not on
// the GPU words of the log lines printed before it.
TEST(HostErrors, StandardLibraryExceptionsAndTheShapeOfASyntaxError) {
  const PythonException* json_error = Table().PythonByName("JSONDecodeError");
  ASSERT_NE(json_error, nullptr);
  EXPECT_EQ(json_error->module, "json.decoder");
  EXPECT_EQ(json_error->base, "ValueError");
  auto titled = Table().Find("[Bug]: json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)");
  ASSERT_TRUE(titled);
  EXPECT_EQ(titled->python, json_error);
  const std::string syntax =
      "Traceback (most recent call last):\n"
      "  File \"app.py\", line 12, in <module>\n"
      "    from utils import chat\n"
      "  File \"utils.py\", line 5\n"
      "    match model_type:\n"
      "          ^\n";
  auto shape = Table().Find(syntax);
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->python->name, "SyntaxError");
  // A frame with a function is an ordinary frame, not a syntax error.
  EXPECT_FALSE(Table().Find("  File \"a.py\", line 3, in main\n    f()\n    ^^^\n"));
  Analysis banner = Analyze(M(), "CUDA SETUP: Loading binary libbitsandbytes_cuda118.so...\n" + syntax, AnalysisMode::kPaste);
  ASSERT_EQ(banner.hits.size(), 1u);
  EXPECT_EQ(banner.hits[0].finding.key, "python:SyntaxError");
}

// A symptom found beside its cause names it: a CUDA context error after the driver's Xid for
// the same fault, not after an Xid that is itself a consequence (Xid 45).
TEST(HostErrors, ASymptomNamesItsCause) {
  Analysis a = Analyze(M(),
                       "kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
                       "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                       AnalysisMode::kLog);
  int xid = -1, cuda = -1;
  for (size_t i = 0; i < a.hits.size(); ++i) {
    if (a.hits[i].finding.xid) xid = static_cast<int>(i);
    if (a.hits[i].finding.key == "illegal_memory_access") cuda = static_cast<int>(i);
  }
  ASSERT_GE(xid, 0);
  ASSERT_GE(cuda, 0);
  EXPECT_EQ(a.hits[static_cast<size_t>(cuda)].follows, xid);
  EXPECT_EQ(a.hits[static_cast<size_t>(xid)].follows, -1);
  Analysis after_45 = Analyze(M(),
                              "NVRM: Xid (PCI:0000:3b:00): 45, pid=1234, Ch 00000010\n"
                              "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                              AnalysisMode::kLog);
  for (const Hit& h : after_45.hits) {
    if (h.finding.key == "illegal_memory_access") {
      EXPECT_EQ(h.follows, -1);
    }
  }
}

}  // namespace
}  // namespace gpuprobe::doctor
