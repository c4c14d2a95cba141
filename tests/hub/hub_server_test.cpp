// The header-only fetch end to end: the libcurl client against tests/hub/hub_server.py on
// 127.0.0.1, serving the Hub-shaped tree of tests/fixtures/hub_tree (real configs and
// indexes, headers of the real tensor layouts, weights never stored). Redirects, ranges,
// gated models, and each way a server or a file goes wrong; the bytes read per model; the
// Hub cache left behind and the offline re-run that reads nothing.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_files.h"
#include "hub/curl_http_client.h"
#include "hub/git_blob_id.h"
#include "hub/hub_fetch.h"
#include "hub/hub_names.h"
#include "model/safetensors_header.h"

namespace gpuprobe::hub {
namespace {

namespace fs = std::filesystem;

const std::string kTree = GPUPROBE_FIXTURES_DIR "/hub_tree";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The commit the test server gives a repository (hub_server.py).
std::string CommitOf(const std::string& repo_id) { return Sha1Hex("gpuprobe-test-hub:" + repo_id); }

// Adds up what the client received, errors included.
class CountingClient : public HttpClient {
 public:
  explicit CountingClient(HttpClient& inner) : inner_(inner) {}
  core::Result<HttpResponse> Get(const HttpRequest& request) override {
    auto response = inner_.Get(request);
    ++requests;
    if (response.ok()) bytes += response->bytes_received;
    return response;
  }
  int requests = 0;
  std::uint64_t bytes = 0;

 private:
  HttpClient& inner_;
};

struct Totals {
  double elements = 0;
  double bytes = 0;
  int tensors = 0;
};

core::Result<Totals> CountFromHeaders(const HubSnapshot& snapshot) {
  Totals totals;
  for (const auto& shard : snapshot.shards) {
    checkpoint::HeaderBytes header;
    GPUPROBE_ASSIGN_OR_RETURN(header, ReadShardHeader(shard));
    model::SafetensorsHeader parsed;
    GPUPROBE_ASSIGN_OR_RETURN(parsed, model::ParseSafetensorsHeader(header.bytes, header.data_bytes, shard.file));
    for (const auto& t : parsed.tensors) {
      totals.elements += t.elements;
      totals.bytes += static_cast<double>(t.end - t.begin);
      ++totals.tensors;
    }
  }
  return totals;
}

class HubServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Loopback must not go through a proxy a developer has set.
    for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}) {
      ::unsetenv(name);
    }
    char pattern[] = "/tmp/gpuprobe-hubserver-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    server_dir_ = pattern;
    const std::string port_file = server_dir_ + "/port";
    log_ = server_dir_ + "/requests.jsonl";
    server_pid_ = ::fork();
    ASSERT_GE(server_pid_, 0);
    if (server_pid_ == 0) {
      const std::string script = GPUPROBE_TESTS_DIR "/hub/hub_server.py";
      ::execlp("python3", "python3", script.c_str(), "--root", kTree.c_str(), "--port-file", port_file.c_str(), "--log",
               log_.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(port_file)) << "the test server did not start (python3?)";
    port_ = std::stoi(ReadAll(port_file));
  }
  static void TearDownTestSuite() {
    if (server_pid_ > 0) {
      ::kill(server_pid_, SIGTERM);
      ::waitpid(server_pid_, nullptr, 0);
    }
    std::error_code ec;
    fs::remove_all(server_dir_, ec);
  }

  void SetUp() override {
    char pattern[] = "/tmp/gpuprobe-hubcache-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    env_.endpoint = "http://127.0.0.1:" + std::to_string(port_);
    env_.hub_cache = dir_ + "/hub";
    env_.headers_cache = dir_ + "/gpuprobe/hub-headers";
    env_.token_path = dir_ + "/token";
    CurlClientOptions options;
    options.total_timeout_ms = 20000;
    auto client = MakeCurlHttpClient(options);
    ASSERT_TRUE(client.ok());
    curl_ = std::move(*client);
    log_start_ = LogLines().size();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The server's log lines since this test began.
  static std::vector<nlohmann::json> LogLines() {
    std::vector<nlohmann::json> lines;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }
  std::vector<nlohmann::json> NewLogLines() const {
    auto all = LogLines();
    return std::vector<nlohmann::json>(all.begin() + static_cast<std::ptrdiff_t>(log_start_), all.end());
  }
  core::Result<HubSnapshot> Fetch(const std::string& repo_id, const std::string& revision = "main") {
    CountingClient counting(*curl_);
    auto result = FetchModelHeaders(repo_id, revision, env_, counting);
    bytes_ = counting.bytes;
    requests_ = counting.requests;
    return result;
  }
  std::string Repo(const std::string& repo_id) const { return env_.hub_cache + "/" + RepoFolderName(repo_id); }

  static std::string server_dir_;
  static std::string log_;
  static pid_t server_pid_;
  static int port_;
  std::string dir_;
  HubEnv env_;
  std::unique_ptr<HttpClient> curl_;
  size_t log_start_ = 0;
  std::uint64_t bytes_ = 0;
  int requests_ = 0;
};

std::string HubServerTest::server_dir_;
std::string HubServerTest::log_;
pid_t HubServerTest::server_pid_ = -1;
int HubServerTest::port_ = 0;

TEST_F(HubServerTest, ShardedModelCountedExactlyFromHeadersOnly) {
  const std::string repo_id = "instructlab/granite-7b-lab";
  auto snapshot = Fetch(repo_id);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->commit, CommitOf(repo_id));
  ASSERT_EQ(snapshot->shards.size(), 3u);
  auto totals = CountFromHeaders(*snapshot);
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  // The real index's total_size (13,476,962,304 bytes of bf16) is 6,738,481,152 parameters.
  EXPECT_EQ(totals->elements, 6738481152.0);
  EXPECT_EQ(totals->bytes, 13476962304.0);
  EXPECT_EQ(totals->tensors, 291);
  // config, index, then two ranges per shard; a few tens of KB in all.
  EXPECT_EQ(snapshot->network.requests, 8);
  EXPECT_EQ(requests_, 8);
  EXPECT_LT(snapshot->network.bytes_received, 150u * 1024);
  // Every request for a shard asked for a range inside the header; the weights were never sent.
  std::uint64_t cdn_bytes = 0, header_bytes = 0;
  for (const auto& shard : snapshot->shards) header_bytes += 8 + ReadShardHeader(shard)->bytes.size();
  for (const auto& line : NewLogLines()) {
    const std::string path = line["path"];
    if (path.size() < 12 || path.compare(path.size() - 12, 12, ".safetensors") != 0) continue;
    EXPECT_TRUE(line["range"].is_string()) << path;
    if (path.rfind("/cdn/", 0) == 0) cdn_bytes += line["length"].get<std::uint64_t>();
  }
  EXPECT_EQ(cdn_bytes, header_bytes);
}

TEST_F(HubServerTest, ShardHeadersOverSeveralConnectionsGiveTheSameCount) {
  FetchOptions options;
  options.parallel = 3;
  options.make_client = [] { return MakeCurlHttpClient(); };
  auto snapshot = FetchModelHeaders("instructlab/granite-7b-lab", "main", env_, *curl_, options);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->network.requests, 8);
  auto totals = CountFromHeaders(*snapshot);
  ASSERT_TRUE(totals.ok());
  EXPECT_EQ(totals->elements, 6738481152.0);
}

TEST_F(HubServerTest, LeavesTheStandardCacheAndReadsNothingTheSecondTime) {
  const std::string repo_id = "instructlab/granite-7b-lab";
  auto snapshot = Fetch(repo_id);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const std::string repo = Repo(repo_id), commit = CommitOf(repo_id);
  EXPECT_EQ(ReadAll(repo + "/refs/main"), commit);
  for (const char* file : {"config.json", "model.safetensors.index.json"}) {
    const std::string pointer = repo + "/snapshots/" + commit + "/" + file;
    const std::string served = ReadAll(kTree + "/" + repo_id + "/" + file);
    ASSERT_TRUE(fs::is_symlink(pointer)) << pointer;
    EXPECT_EQ(fs::read_symlink(pointer).string(), "../../blobs/" + GitBlobId(served));
    EXPECT_EQ(ReadAll(pointer), served);
  }
  for (const auto& entry : fs::directory_iterator(repo + "/snapshots/" + commit)) {
    EXPECT_EQ(entry.path().extension(), ".json") << "only config and index go into the Hub cache";
  }
  for (const auto& shard : snapshot->shards) {
    EXPECT_EQ(shard.header_path,
              env_.headers_cache + "/models--instructlab--granite-7b-lab/" + commit + "/" + shard.file + ".header.json");
    EXPECT_TRUE(fs::is_regular_file(shard.header_path));
  }
  // huggingface_hub's layout is what gpuprobe's own cache lookup finds.
  ::setenv("HF_HUB_CACHE", env_.hub_cache.c_str(), 1);
  EXPECT_EQ(checkpoint::FindHubSnapshot(repo_id).value_or(""), repo + "/snapshots/" + commit);
  ::unsetenv("HF_HUB_CACHE");

  const size_t lines = LogLines().size();
  auto online = Fetch(repo_id);
  ASSERT_TRUE(online.ok());
  EXPECT_EQ(online->network.requests, 0);
  env_.offline = true;
  env_.offline_variable = "HF_HUB_OFFLINE";
  auto offline = Fetch(repo_id);
  ASSERT_TRUE(offline.ok()) << offline.status().ToString();
  EXPECT_EQ(requests_, 0);
  EXPECT_EQ(LogLines().size(), lines);
  auto totals = CountFromHeaders(*offline);
  ASSERT_TRUE(totals.ok());
  EXPECT_EQ(totals->elements, 6738481152.0);
}

TEST_F(HubServerTest, SingleFileModel) {
  auto snapshot = Fetch("openai-community/gpt2");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  ASSERT_EQ(snapshot->shards.size(), 1u);
  EXPECT_TRUE(snapshot->index_path.empty());
  EXPECT_TRUE(fs::exists(Repo("openai-community/gpt2") + "/.no_exist/" + CommitOf("openai-community/gpt2") +
                         "/model.safetensors.index.json"));
  auto totals = CountFromHeaders(*snapshot);
  ASSERT_TRUE(totals.ok());
  // safetensors' own count for gpt2 (F32 137,022,720, with the 12 causal-mask buffers).
  EXPECT_EQ(totals->elements, 137022720.0);
  EXPECT_LT(snapshot->network.bytes_received, 50u * 1024);
}

TEST_F(HubServerTest, GatedModelNeedsTheTokenAndTheCdnNeverSeesIt) {
  const std::string repo_id = "google/gemma-2-2b-it";
  auto none = Fetch(repo_id);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message_key(), "error.hub.gated");
  EXPECT_NE(none.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_NE(none.status().message().find("no token was sent"), std::string::npos);
  env_.token = "hf_wrong";
  env_.token_source = TokenSource::kHfToken;
  auto wrong = Fetch(repo_id);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("HTTP 403"), std::string::npos);
  EXPECT_NE(wrong.status().message().find("the token from HF_TOKEN was sent and refused"), std::string::npos);
  env_.token = "hf_gpuprobe_test_token";
  log_start_ = LogLines().size();
  auto right = Fetch(repo_id);
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  auto totals = CountFromHeaders(*right);
  ASSERT_TRUE(totals.ok());
  EXPECT_EQ(totals->elements, 2614341888.0);  // the real index: 5,228,683,776 bytes of bf16
  int resolve = 0, cdn = 0;
  for (const auto& line : NewLogLines()) {
    const std::string path = line["path"];
    if (path.rfind("/cdn/", 0) == 0) {
      ++cdn;
      EXPECT_FALSE(line["token"].get<bool>()) << "the token went to another host: " << path;
    } else {
      ++resolve;
      EXPECT_TRUE(line["token"].get<bool>()) << path;
    }
  }
  EXPECT_EQ(cdn, 4);  // followed from 302s to http://localhost:<port>/cdn/...
  EXPECT_EQ(resolve, 2 + 4);
}

TEST_F(HubServerTest, NoSuchRepositoryRevisionOrFile) {
  auto repo = Fetch("nobody/nothing");
  EXPECT_EQ(repo.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(repo.status().message_key(), "error.hub.repo_not_found");
  EXPECT_NE(repo.status().message().find(env_.endpoint + "/nobody/nothing/resolve/main/config.json"),
            std::string::npos);
  auto revision = Fetch("gpuprobe-test/tiny-llama", "v42");
  EXPECT_EQ(revision.status().message_key(), "error.hub.revision_not_found");
  auto config_only = Fetch("gpuprobe-test/no-safetensors");
  ASSERT_TRUE(config_only.ok()) << config_only.status().ToString();
  EXPECT_FALSE(config_only->has_safetensors);
}

TEST_F(HubServerTest, BadFilesAndBadServersAreRefusedWithTheUrl) {
  struct Case {
    const char* repo;
    core::StatusCode code;
    const char* key;
    const char* says;
  };
  const Case cases[] = {
      {"gpuprobe-test/truncated-file", core::StatusCode::kParseError, "error.hub.header_past_end",
       "past the end of the 200-byte file"},
      {"gpuprobe-test/cut-connection", core::StatusCode::kParseError, "error.hub.truncated", "stops at byte 58"},
      {"gpuprobe-test/hostile-header-length", core::StatusCode::kParseError, "error.hub.header_length",
       "header length of 1152921504606846976 bytes"},
      {"gpuprobe-test/ignores-range", core::StatusCode::kParseError, "error.hub.range_ignored", "HTTP 200 instead of 206"},
      {"gpuprobe-test/malformed-config", core::StatusCode::kParseError, "error.json.syntax", "config.json: not valid JSON"},
      {"gpuprobe-test/hostile-index", core::StatusCode::kParseError, "error.hub.index_bad_shard",
       "'../../../etc/passwd.safetensors'"},
      {"gpuprobe-test/redirect-loop", core::StatusCode::kUnavailable, "error.hub.unreachable", "too many redirects"},
  };
  for (const Case& c : cases) {
    auto result = Fetch(c.repo);
    ASSERT_FALSE(result.ok()) << c.repo;
    EXPECT_EQ(result.status().code(), c.code) << c.repo << ": " << result.status().ToString();
    EXPECT_EQ(result.status().message_key(), c.key) << c.repo << ": " << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.says), std::string::npos) << result.status().ToString();
    EXPECT_NE(result.status().message().find(env_.endpoint + "/" + c.repo + "/resolve/"), std::string::npos)
        << result.status().ToString();
    // A file of a gigabyte that ignores Range costs at most one network read, not the file.
    EXPECT_LT(bytes_, 512u * 1024) << c.repo;
  }
  auto header = Fetch("gpuprobe-test/malformed-header");
  EXPECT_EQ(header.status().code(), core::StatusCode::kParseError) << header.status().ToString();
  EXPECT_NE(header.status().message().find("/model.safetensors"), std::string::npos);
  EXPECT_FALSE(fs::exists("/etc/passwd.safetensors.header.json"));
}

TEST_F(HubServerTest, AHostileHeaderLengthIsNeverRead) {
  auto result = Fetch("gpuprobe-test/hostile-header-length");
  ASSERT_FALSE(result.ok());
  int ranges = 0;
  for (const auto& line : NewLogLines()) {
    if (line["path"].get<std::string>().rfind("/cdn/", 0) == 0) {
      ++ranges;
      EXPECT_EQ(line["range"], "bytes=0-7");
    }
  }
  EXPECT_EQ(ranges, 1);
}

TEST_F(HubServerTest, AServerWithoutRepoCommitStillGivesAReusableCache) {
  auto snapshot = Fetch("gpuprobe-test/no-repo-commit");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->commit, GitBlobId(ReadAll(kTree + "/gpuprobe-test/no-repo-commit/config.json")));
  env_.offline = true;
  env_.offline_variable = "HF_HUB_OFFLINE";
  EXPECT_TRUE(Fetch("gpuprobe-test/no-repo-commit").ok());
}

TEST_F(HubServerTest, UnreachableAndSilentServersAreUnavailable) {
  // A port nobody listens on.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  HubEnv closed = env_;
  closed.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  auto refused = FetchModelHeaders("gpuprobe-test/tiny-llama", "main", closed, *curl_);
  EXPECT_EQ(refused.status().code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(refused.status().message_key(), "error.hub.unreachable");
  EXPECT_NE(refused.status().message().find("cannot reach " + closed.endpoint), std::string::npos);
  EXPECT_NE(refused.status().message().find("no connection could be made"), std::string::npos);

  CurlClientOptions options;
  options.total_timeout_ms = 1000;
  auto quick = MakeCurlHttpClient(options);
  ASSERT_TRUE(quick.ok());
  const auto start = std::chrono::steady_clock::now();
  auto stalled = FetchModelHeaders("gpuprobe-test/stall", "main", env_, **quick);
  EXPECT_EQ(stalled.status().code(), core::StatusCode::kUnavailable);
  EXPECT_NE(stalled.status().message().find("no complete answer before the timeout"), std::string::npos)
      << stalled.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(HubServerTest, FindOrFetchModelReadsTheProcessEnvironment) {
  ::setenv("HF_ENDPOINT", env_.endpoint.c_str(), 1);
  ::setenv("HF_HUB_CACHE", env_.hub_cache.c_str(), 1);
  ::setenv("XDG_CACHE_HOME", (dir_ + "/xdg").c_str(), 1);
  ::unsetenv("HF_TOKEN");
  ::unsetenv("HF_HUB_OFFLINE");
  auto online = FindOrFetchModel("gpuprobe-test/tiny-llama");
  ASSERT_TRUE(online.ok()) << online.status().ToString();
  EXPECT_EQ(online->network.requests, 4);
  EXPECT_EQ(online->shards[0].header_path.rfind(dir_ + "/xdg/gpuprobe/hub-headers/", 0), 0u);
  ::setenv("HF_HUB_OFFLINE", "1", 1);
  auto offline = FindOrFetchModel("gpuprobe-test/tiny-llama");
  ASSERT_TRUE(offline.ok()) << offline.status().ToString();
  EXPECT_EQ(offline->network.requests, 0);
  auto missing = FindOrFetchModel("openai-community/gpt2");
  EXPECT_EQ(missing.status().message_key(), "error.hub.offline_missing");
  for (const char* name : {"HF_ENDPOINT", "HF_HUB_CACHE", "XDG_CACHE_HOME", "HF_HUB_OFFLINE"}) ::unsetenv(name);
}

}  // namespace
}  // namespace gpuprobe::hub
