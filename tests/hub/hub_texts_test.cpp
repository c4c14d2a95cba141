// Every error of the hub module in both languages: each Status carries a text key whose
// English rendering is the library's own message (logs and JSON keep it) and whose Chinese
// rendering reads in Chinese, and every "error.hub.*" message key is produced by some path.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "cli/zh_leak_checker.h"
#include "core/file_io.h"
#include "hub/fake_hub.h"
#include "hub/hub_env.h"
#include "hub/hub_errors.h"
#include "hub/hub_fetch.h"
#include "hub/hub_index.h"
#include "hub/hub_names.h"
#include "report/i18n.h"
#include "report/status_text.h"

namespace gpuprobe::hub {
namespace {

namespace fs = std::filesystem;
using testing::FakeHttpClient;
using testing::FakeHub;

const report::Texts& Texts(report::Language language) {
  static const report::Texts en = *report::Texts::Load(report::Language::kEn);
  static const report::Texts zh = *report::Texts::Load(report::Language::kZh);
  return language == report::Language::kEn ? en : zh;
}

HttpResponse Answer(long status, std::string body, const std::string& content_range = "") {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  if (!content_range.empty()) r.headers.Set("Content-Range", content_range);
  r.headers.Set("X-Repo-Commit", FakeHub::kCommit);
  r.first_headers = r.headers;
  return r;
}

class HubTextsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpuprobe-hubtexts-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    env_.endpoint = FakeHub::kEndpoint;
    env_.hub_cache = dir_ + "/hub";
    env_.headers_cache = dir_ + "/headers";
    env_.token_path = dir_ + "/token";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Runs a fetch of org/tiny whose shard answers come from `shard` (config and index from a
  // normal Hub), in a fresh cache; returns its error.
  core::Status ShardError(const std::function<HttpResponse(const HttpRequest&)>& shard) {
    FakeHub hub;
    hub.AddTinyModel("org/tiny");
    FakeHttpClient client([&](const HttpRequest& r) -> core::Result<HttpResponse> {
      if (r.url.find("model.safetensors") != std::string::npos && r.url.find("index") == std::string::npos) {
        return shard(r);
      }
      return hub.Answer(r);
    });
    std::error_code ec;
    fs::remove_all(env_.hub_cache, ec);
    fs::remove_all(env_.headers_cache, ec);
    return FetchModelHeaders("org/tiny", "main", env_, client).status();
  }
  core::Status FetchError(FakeHub& hub, const std::string& repo = "org/tiny", const std::string& revision = "main") {
    std::error_code ec;
    fs::remove_all(env_.hub_cache, ec);
    FakeHttpClient client = hub.Client();
    return FetchModelHeaders(repo, revision, env_, client).status();
  }
  std::vector<core::Status> AllErrors();

  std::string dir_;
  HubEnv env_;
};

std::vector<core::Status> HubTextsTest::AllErrors() {
  std::vector<core::Status> out;
  out.push_back(ValidateRepoId("a/b/c"));
  out.push_back(ValidateRevision("../x"));
  out.push_back(ResolveHubEnv({{"HOME", "/h"}, {"HF_ENDPOINT", "hf-mirror.com"}}).status());
  out.push_back(ResolveHubEnv({}).status());
  for (TransportFailure f : {TransportFailure::kResolve, TransportFailure::kConnect, TransportFailure::kDropped,
                             TransportFailure::kTimeout, TransportFailure::kTls, TransportFailure::kTooManyRedirects,
                             TransportFailure::kProtocol, TransportFailure::kOther}) {
    out.push_back(Unreachable("https://hub.test/a/b/resolve/main/config.json", f, "Connection refused"));
  }
  const FileRef ref{"https://hub.test/a/b/resolve/main/config.json", "a/b", "main", "config.json"};
  auto with_code = [](long status, const char* code) {
    HttpResponse r;
    r.status = status;
    if (code != nullptr) r.headers.Set("X-Error-Code", code);
    return r;
  };
  HubEnv none = env_;
  HubEnv from_env = env_;
  from_env.token = "hf_x";
  from_env.token_source = TokenSource::kHfToken;
  HubEnv from_file = from_env;
  from_file.token_source = TokenSource::kTokenFile;
  HubEnv disabled = env_;
  disabled.token_source = TokenSource::kHfToken;
  disabled.implicit_token_disabled = true;
  for (const HubEnv* e : {&none, &from_env, &from_file, &disabled}) {
    out.push_back(StatusFromHttp(ref, with_code(401, "GatedRepo"), *e));
    out.push_back(StatusFromHttp(ref, with_code(401, "RepoNotFound"), *e));
  }
  out.push_back(StatusFromHttp(ref, with_code(404, "RevisionNotFound"), none));
  out.push_back(StatusFromHttp(ref, with_code(404, "EntryNotFound"), none));
  out.push_back(StatusFromHttp(ref, with_code(404, nullptr), none));
  out.push_back(StatusFromHttp(ref, with_code(503, nullptr), none));
  out.push_back(StatusFromHttp(ref, with_code(418, nullptr), none));
  out.push_back(CheckConfigJson("[]", ref.url));
  for (const char* index : {"{}", "{\"weight_map\": {\"a\": 1}}", "{\"weight_map\": {\"a\": \"../x.safetensors\"}}",
                            "{\"weight_map\": {}}", "{\"weight_map\": {\"a\": \"1.safetensors\", \"b\": \"2.safetensors\"}}"}) {
    out.push_back(ShardsFromIndex(index, ref.url, 1).status());
  }
  out.push_back(CacheWriteError(dir_ + "/x", EACCES));
  out.push_back(SavedHeaderFromJson("{}", dir_ + "/x.header.json").status());

  // Shard answers, each wrong in its own way.
  out.push_back(ShardError([](const HttpRequest& r) {
    HttpResponse a = Answer(200, std::string(r.max_body_bytes, 'x'));
    a.body_over_limit = true;
    return a;
  }));
  out.push_back(ShardError([](const HttpRequest& r) {
    HttpResponse a = Answer(206, std::string(r.max_body_bytes, 'x'), "bytes 0-7/100");
    a.body_over_limit = true;
    return a;
  }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, "12345678", "bytes 4-11/100"); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, "abc", "bytes 0-2/3"); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, "abc", "bytes 0-7/100"); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, testing::SafetensorsPrefix("", 1ull << 60)); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, testing::SafetensorsPrefix("", 1)); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, testing::SafetensorsPrefix("", 64)); }));
  out.push_back(ShardError([](const HttpRequest&) { return Answer(206, testing::SafetensorsPrefix("", 64), "bytes 0-7/40"); }));
  out.push_back(ShardError([](const HttpRequest& r) {
    return r.range->first == 0 ? Answer(206, testing::SafetensorsPrefix("", 16), "bytes 0-7/100")
                               : Answer(206, "{\"a\":{\"x\":1}}   ", "bytes 8-23/100");
  }));

  FakeHub hub;
  hub.AddTinyModel("org/tiny");
  hub.commit_header = "../evil";
  out.push_back(FetchError(hub));
  {
    // Neither X-Repo-Commit nor ETag.
    FakeHttpClient bare([](const HttpRequest&) -> core::Result<HttpResponse> {
      HttpResponse r;
      r.status = 200;
      r.body = "{}";
      return r;
    });
    out.push_back(FetchModelHeaders("org/bare", "main", env_, bare).status());
    FakeHttpClient big([](const HttpRequest& r) -> core::Result<HttpResponse> {
      HttpResponse a = Answer(200, std::string(r.max_body_bytes, ' '));
      a.body_over_limit = true;
      return a;
    });
    out.push_back(FetchModelHeaders("org/big", "main", env_, big).status());
    FakeHttpClient broken([](const HttpRequest&) -> core::Result<HttpResponse> {
      HttpResponse a = Answer(200, "{\"a\":");
      a.body_incomplete = true;
      return a;
    });
    out.push_back(FetchModelHeaders("org/broken", "main", env_, broken).status());
  }
  HubEnv offline = env_;
  offline.offline = true;
  offline.offline_variable = "HF_HUB_OFFLINE";
  FakeHttpClient unused([](const HttpRequest&) -> core::Result<HttpResponse> { return core::Status::Internal("x"); });
  out.push_back(FetchModelHeaders("org/absent", "main", offline, unused).status());
  out.push_back(FindCachedModel("org/absent", "main", env_).status());
  return out;
}

TEST_F(HubTextsTest, EveryErrorReadsInEnglishAndChinese) {
  const auto allow = gpuprobe::testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt");
  std::set<std::string> keys;
  for (const core::Status& status : AllErrors()) {
    ASSERT_FALSE(status.ok());
    ASSERT_FALSE(status.message_key().empty()) << "untranslatable: " << status.message();
    keys.insert(status.message_key());
    EXPECT_EQ(report::StatusMessage(status, Texts(report::Language::kEn)), status.message()) << status.message_key();
    if (!status.hint().empty()) {
      EXPECT_EQ(report::StatusHint(status, Texts(report::Language::kEn)), status.hint()) << status.message_key();
    }
    const std::string zh = report::StatusMessage(status, Texts(report::Language::kZh)) + "\n" +
                           report::StatusHint(status, Texts(report::Language::kZh));
    auto leaks = gpuprobe::testing::FindLeaks(zh, allow);
    EXPECT_TRUE(leaks.empty()) << status.message_key() << ":\n" << zh << "\n" << gpuprobe::testing::DescribeLeaks(leaks);
  }
  // Every message key of the module is reached by some path above.
  for (const auto& [key, text] : Texts(report::Language::kEn).All()) {
    if (key.rfind("error.hub.", 0) != 0) continue;
    if (key.find(".hint") != std::string::npos || key.rfind("error.hub.reason.", 0) == 0 ||
        key.rfind("error.hub.token_note.", 0) == 0) {
      continue;
    }
    EXPECT_TRUE(keys.count(key)) << key << " is never produced";
  }
}

}  // namespace
}  // namespace gpuprobe::hub
