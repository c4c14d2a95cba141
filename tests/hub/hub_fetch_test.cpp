// FetchModelHeaders against the in-memory Hub (fake_hub.h): the requests it makes (two
// ranges per shard, never the weights), the Hub cache layout it leaves, the offline re-run,
// and every class of error.
#include "hub/hub_fetch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "hub/fake_hub.h"
#include "hub/git_blob_id.h"
#include "hub/hub_names.h"
#include "model/safetensors_header.h"

namespace gpuprobe::hub {
namespace {

namespace fs = std::filesystem;
using testing::FakeHttpClient;
using testing::FakeHub;

constexpr const char* kCommit = FakeHub::kCommit;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class HubFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpuprobe-hub-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    env_.endpoint = FakeHub::kEndpoint;
    env_.hub_cache = dir_ + "/hub";
    env_.headers_cache = dir_ + "/gpuprobe/hub-headers";
    env_.token_path = dir_ + "/token";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Repo(const std::string& repo_id) const { return env_.hub_cache + "/" + RepoFolderName(repo_id); }
  core::Result<HubSnapshot> Fetch(FakeHttpClient& client, const std::string& repo_id = "org/tiny",
                                  const std::string& revision = "main") {
    return FetchModelHeaders(repo_id, revision, env_, client);
  }
  // A client that fails the test when asked anything.
  static FakeHttpClient NoNetwork() {
    return FakeHttpClient([](const HttpRequest& r) -> core::Result<HttpResponse> {
      ADD_FAILURE() << "network request " << r.url;
      return core::Status::Internal("network");
    });
  }

  std::string dir_;
  HubEnv env_;
  FakeHub hub_;
};

TEST_F(HubFetchTest, SingleFileModelReadsConfigIndexAndTwoRanges) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  ASSERT_EQ(client.requests.size(), 4u);
  const std::string base = std::string(FakeHub::kEndpoint) + "/org/tiny/resolve/";
  EXPECT_EQ(client.requests[0].url, base + "main/config.json");
  EXPECT_FALSE(client.requests[0].range.has_value());
  // Once the commit is known, the rest is asked for by commit.
  EXPECT_EQ(client.requests[1].url, base + kCommit + "/model.safetensors.index.json");
  EXPECT_EQ(client.requests[2].url, base + kCommit + "/model.safetensors");
  ASSERT_TRUE(client.requests[2].range.has_value());
  EXPECT_EQ(client.requests[2].range->first, 0u);
  EXPECT_EQ(client.requests[2].range->last, 7u);
  EXPECT_EQ(client.requests[2].max_body_bytes, 8u);
  std::uint64_t data = 0;
  const std::string header = testing::TinyHeader(&data);
  ASSERT_TRUE(client.requests[3].range.has_value());
  EXPECT_EQ(client.requests[3].range->first, 8u);
  EXPECT_EQ(client.requests[3].range->last, 8 + header.size() - 1);  // the header's last byte, no weight byte
  EXPECT_EQ(client.requests[3].max_body_bytes, header.size());
  for (const auto& request : client.requests) EXPECT_TRUE(request.bearer_token.empty());

  EXPECT_EQ(snapshot->commit, kCommit);
  EXPECT_TRUE(snapshot->index_path.empty());
  EXPECT_TRUE(snapshot->has_safetensors);
  ASSERT_EQ(snapshot->shards.size(), 1u);
  EXPECT_EQ(snapshot->shards[0].file, "model.safetensors");
  EXPECT_TRUE(snapshot->shards[0].local_path.empty());
  EXPECT_EQ(snapshot->network.requests, 4);
  EXPECT_GT(snapshot->network.bytes_received, header.size());
  EXPECT_LT(snapshot->network.bytes_received, header.size() + 4096);
}

TEST_F(HubFetchTest, LeavesTheHubCacheLayoutAndTheHeaderBesideIt) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const std::string repo = Repo("org/tiny");
  EXPECT_EQ(ReadAll(repo + "/refs/main"), kCommit);  // no newline, as huggingface_hub writes it
  const std::string config = hub_.repos["org/tiny"].files["config.json"];
  const std::string pointer = repo + "/snapshots/" + kCommit + "/config.json";
  EXPECT_EQ(snapshot->config_path, pointer);
  EXPECT_EQ(fs::read_symlink(pointer).string(), "../../blobs/" + GitBlobId(config));
  EXPECT_EQ(ReadAll(pointer), config);
  EXPECT_TRUE(fs::is_regular_file(repo + "/.no_exist/" + kCommit + "/model.safetensors.index.json"));
  // The shard is not in the Hub cache, not even as a partial file: its header is beside it.
  EXPECT_FALSE(fs::exists(repo + "/snapshots/" + kCommit + "/model.safetensors"));
  EXPECT_EQ(fs::directory_iterator(repo + "/blobs") == fs::directory_iterator(), false);
  for (const auto& blob : fs::directory_iterator(repo + "/blobs")) EXPECT_EQ(ReadAll(blob.path().string()), config);
  const std::string sidecar = env_.headers_cache + "/models--org--tiny/" + kCommit + "/model.safetensors.header.json";
  EXPECT_EQ(snapshot->shards[0].header_path, sidecar);
  EXPECT_TRUE(fs::is_regular_file(sidecar));
}

TEST_F(HubFetchTest, ReadShardHeaderGivesWhatTheShardWouldGive) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok());
  auto header = ReadShardHeader(snapshot->shards[0]);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  std::uint64_t data = 0;
  EXPECT_EQ(header->bytes, testing::TinyHeader(&data));
  EXPECT_EQ(header->data_bytes, data);
  EXPECT_EQ(header->file_size, 8 + header->bytes.size() + data);
  auto parsed = model::ParseSafetensorsHeader(header->bytes, header->data_bytes, "x");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  double elements = 0;
  for (const auto& t : parsed->tensors) elements += t.elements;
  // 2 x 1000 x 64 + 64 + 2 x (64 + 3 x 128 x 64 + 64 + 2 x 32 x 64 + 2 x 64 x 64)
  EXPECT_EQ(elements, 128000 + 64 + 2 * (64 + 3 * 8192 + 64 + 4096 + 8192));
}

TEST_F(HubFetchTest, ASecondRunReadsNothingOnlineOrOffline) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto first = Fetch(client);
  ASSERT_TRUE(first.ok());
  FakeHttpClient none = NoNetwork();
  auto again = Fetch(none);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->network.requests, 0);
  EXPECT_EQ(again->commit, first->commit);
  EXPECT_EQ(again->shards[0].header_path, first->shards[0].header_path);
  env_.offline = true;
  env_.offline_variable = "HF_HUB_OFFLINE";
  auto offline = Fetch(none);
  ASSERT_TRUE(offline.ok()) << offline.status().ToString();
  EXPECT_EQ(offline->network.requests, 0);
  auto cached = FindCachedModel("org/tiny", "main", env_);
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->snapshot_dir, first->snapshot_dir);
  EXPECT_TRUE(none.requests.empty());
}

TEST_F(HubFetchTest, OfflineWithoutTheModelSaysSoAndAsksNothing) {
  env_.offline = true;
  env_.offline_variable = "HF_HUB_OFFLINE";
  FakeHttpClient none = NoNetwork();
  auto snapshot = Fetch(none);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.status().code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(snapshot.status().message_key(), "error.hub.offline_missing");
  EXPECT_NE(snapshot.status().message().find("HF_HUB_OFFLINE is set"), std::string::npos);
  EXPECT_NE(snapshot.status().message().find("refs/main"), std::string::npos);
  auto cached = FindCachedModel("org/tiny", "main", env_);
  ASSERT_FALSE(cached.ok());
  EXPECT_EQ(cached.status().message_key(), "error.hub.not_cached");
}

TEST_F(HubFetchTest, ShardedModelReadsTheIndexAndEachShardsHeader) {
  FakeHub::Repo& repo = hub_.repos["org/sharded"];
  repo.files["config.json"] = "{\"model_type\": \"llama\"}";
  repo.files["model.safetensors.index.json"] =
      "{\"metadata\": {\"total_size\": 6}, \"weight_map\": {\"a\": \"model-00002-of-00002.safetensors\", "
      "\"b\": \"model-00001-of-00002.safetensors\", \"c\": \"model-00002-of-00002.safetensors\"}}";
  const std::string one = "{\"b\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]}}";
  const std::string two =
      "{\"a\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]},\"c\":{\"dtype\":\"F16\",\"shape\":[1],"
      "\"data_offsets\":[2,4]}}";
  repo.lfs["model-00001-of-00002.safetensors"] = {testing::SafetensorsPrefix(one, one.size()), 8 + one.size() + 2};
  repo.lfs["model-00002-of-00002.safetensors"] = {testing::SafetensorsPrefix(two, two.size()), 8 + two.size() + 4};
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client, "org/sharded");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(client.requests.size(), 2u + 2 * 2);
  ASSERT_EQ(snapshot->shards.size(), 2u);
  EXPECT_EQ(snapshot->shards[0].file, "model-00001-of-00002.safetensors");
  EXPECT_EQ(snapshot->index_path, Repo("org/sharded") + "/snapshots/" + kCommit + "/model.safetensors.index.json");
  EXPECT_EQ(ReadAll(snapshot->index_path), repo.files["model.safetensors.index.json"]);
  auto header = ReadShardHeader(snapshot->shards[1]);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->bytes, two);
  EXPECT_EQ(header->data_bytes, 4u);
}

TEST_F(HubFetchTest, AUsersFilesAreLeftAsTheyAre) {
  hub_.AddTinyModel("org/tiny");
  // huggingface_hub already downloaded config.json (say, AutoConfig) at this commit.
  const std::string repo = Repo("org/tiny");
  fs::create_directories(repo + "/refs");
  fs::create_directories(repo + "/snapshots/" + kCommit);
  ASSERT_TRUE(core::WriteFileAtomically(repo + "/refs/main", kCommit).ok());
  ASSERT_TRUE(core::WriteFileAtomically(repo + "/snapshots/" + kCommit + "/config.json", "{\"mine\": 1}").ok());
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(ReadAll(repo + "/snapshots/" + kCommit + "/config.json"), "{\"mine\": 1}");
  for (const auto& request : client.requests) EXPECT_EQ(request.url.find("config.json"), std::string::npos);
  EXPECT_EQ(client.requests.size(), 3u);  // the index, then the two ranges
}

TEST_F(HubFetchTest, ADownloadedShardIsReadInsteadOfFetched) {
  hub_.AddTinyModel("org/tiny");
  const std::string repo = Repo("org/tiny");
  fs::create_directories(repo + "/snapshots/" + kCommit);
  fs::create_directories(repo + "/refs");
  ASSERT_TRUE(core::WriteFileAtomically(repo + "/refs/main", kCommit).ok());
  const auto& lfs = hub_.repos["org/tiny"].lfs["model.safetensors"];
  std::string shard = lfs.prefix;
  shard.resize(lfs.size, '\0');
  ASSERT_TRUE(core::WriteFileAtomically(repo + "/snapshots/" + kCommit + "/model.safetensors", shard).ok());
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(client.requests.size(), 1u);  // config.json only: the shard is here
  ASSERT_EQ(snapshot->shards.size(), 1u);
  EXPECT_EQ(snapshot->shards[0].local_path, repo + "/snapshots/" + kCommit + "/model.safetensors");
  auto header = ReadShardHeader(snapshot->shards[0]);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  std::uint64_t data = 0;
  EXPECT_EQ(header->bytes, testing::TinyHeader(&data));
}

TEST_F(HubFetchTest, NeitherIndexNorSafetensorsLeavesConfigOnly) {
  hub_.repos["org/bin-only"].files["config.json"] = "{}";
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client, "org/bin-only");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_FALSE(snapshot->has_safetensors);
  EXPECT_TRUE(snapshot->shards.empty());
  const std::string absent = Repo("org/bin-only") + "/.no_exist/" + kCommit + "/";
  EXPECT_TRUE(fs::exists(absent + "model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(absent + "model.safetensors"));
  FakeHttpClient none = NoNetwork();
  auto again = Fetch(none, "org/bin-only");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->has_safetensors);
}

TEST_F(HubFetchTest, TheTokenGoesAsABearerToken) {
  hub_.AddTinyModel("org/gated").gated_token = "hf_right";
  env_.token = "hf_right";
  env_.token_source = TokenSource::kHfToken;
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client, "org/gated");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  for (const auto& request : client.requests) EXPECT_EQ(request.bearer_token, "hf_right");
}

TEST_F(HubFetchTest, AGatedModelSaysWhetherATokenWasSent) {
  hub_.AddTinyModel("org/gated").gated_token = "hf_right";
  FakeHttpClient client = hub_.Client();
  auto none = Fetch(client, "org/gated");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message_key(), "error.hub.gated");
  EXPECT_NE(none.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_NE(none.status().message().find("no token was sent (HF_TOKEN is not set)"), std::string::npos);
  EXPECT_NE(none.status().hint().find("HF_TOKEN"), std::string::npos);
  env_.token = "hf_wrong";
  env_.token_source = TokenSource::kTokenFile;
  auto wrong = Fetch(client, "org/gated");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("HTTP 403"), std::string::npos);
  EXPECT_NE(wrong.status().message().find("the token from " + env_.token_path + " was sent and refused"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(Repo("org/gated") + "/refs/main"));  // nothing cached from a refusal
}

TEST_F(HubFetchTest, EachHttpErrorHasItsClass) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto missing_repo = Fetch(client, "org/nothing");
  EXPECT_EQ(missing_repo.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing_repo.status().message_key(), "error.hub.repo_not_found");
  EXPECT_NE(missing_repo.status().message().find("https://hub.test/org/nothing/resolve/main/config.json"),
            std::string::npos);
  auto revision = Fetch(client, "org/tiny", "v9");
  EXPECT_EQ(revision.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(revision.status().message_key(), "error.hub.revision_not_found");
  auto bad_id = Fetch(client, "not a repo");
  EXPECT_EQ(bad_id.status().message_key(), "error.hub.bad_repo_id");

  for (long status : {404L, 429L, 500L, 503L, 418L}) {
    FakeHttpClient fixed([status](const HttpRequest& r) -> core::Result<HttpResponse> {
      HttpResponse response;
      response.status = status;
      response.final_url = r.url;
      return response;
    });
    auto result = Fetch(fixed);
    ASSERT_FALSE(result.ok());
    const std::string key = result.status().message_key();
    if (status == 404) {
      EXPECT_EQ(result.status().code(), core::StatusCode::kInvalidArgument);
      EXPECT_EQ(key, "error.hub.not_found");
    } else if (status == 418) {
      EXPECT_EQ(result.status().code(), core::StatusCode::kParseError);
      EXPECT_EQ(key, "error.hub.unexpected_status");
    } else {
      EXPECT_EQ(result.status().code(), core::StatusCode::kUnavailable) << status;
      EXPECT_EQ(key, "error.hub.http_status");
    }
    EXPECT_NE(result.status().message().find("https://hub.test/org/tiny/resolve/main/config.json"), std::string::npos);
  }
}

TEST_F(HubFetchTest, AnUnreachableHubIsUnavailableNamingTheUrl) {
  for (TransportFailure failure : {TransportFailure::kResolve, TransportFailure::kConnect, TransportFailure::kTimeout,
                                   TransportFailure::kTls, TransportFailure::kTooManyRedirects}) {
    FakeHttpClient down([failure](const HttpRequest& r) -> core::Result<HttpResponse> {
      return Unreachable(r.url, failure, "detail from the library");
    });
    auto result = Fetch(down);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), core::StatusCode::kUnavailable);
    EXPECT_EQ(result.status().message_key(), "error.hub.unreachable");
    EXPECT_NE(result.status().message().find("cannot reach https://hub.test/org/tiny/resolve/main/config.json"),
              std::string::npos);
    EXPECT_NE(result.status().hint().find("HF_ENDPOINT"), std::string::npos);
    EXPECT_NE(result.status().hint().find("HF_HUB_OFFLINE"), std::string::npos);
  }
}

TEST_F(HubFetchTest, AServerIgnoringRangeIsCutOffAtEightBytes) {
  hub_.AddTinyModel("org/tiny");
  hub_.repos["org/tiny"].lfs["model.safetensors"].size = 1ull << 40;  // a terabyte of weights
  hub_.ignore_range = true;
  FakeHttpClient client = hub_.Client();
  auto result = Fetch(client);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(result.status().message_key(), "error.hub.range_ignored");
  EXPECT_NE(result.status().message().find("/org/tiny/resolve/" + std::string(kCommit) + "/model.safetensors"),
            std::string::npos);
  EXPECT_EQ(client.requests.back().max_body_bytes, 8u);
}

TEST_F(HubFetchTest, AHostileHeaderLengthIsRefusedBeforeItIsRead) {
  hub_.AddTinyModel("org/tiny");
  auto& lfs = hub_.repos["org/tiny"].lfs["model.safetensors"];
  lfs.prefix = testing::SafetensorsPrefix(lfs.prefix.substr(8), 1ull << 60);
  FakeHttpClient client = hub_.Client();
  auto result = Fetch(client);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(result.status().message_key(), "error.hub.header_length");
  EXPECT_NE(result.status().message().find("bytes 0-7 give a header length of 1152921504606846976 bytes"),
            std::string::npos);
  EXPECT_EQ(client.requests.size(), 3u);  // the length was read; the header never asked for
}

TEST_F(HubFetchTest, TruncatedAndShortFilesNameTheByte) {
  hub_.AddTinyModel("org/tiny");
  const std::string header = hub_.repos["org/tiny"].lfs["model.safetensors"].prefix.substr(8);
  // The header runs past the end of the file.
  hub_.repos["org/tiny"].lfs["model.safetensors"].size = 200;
  FakeHttpClient client = hub_.Client();
  auto past_end = Fetch(client);
  EXPECT_EQ(past_end.status().message_key(), "error.hub.header_past_end");
  EXPECT_NE(past_end.status().message().find("past the end of the 200-byte file"), std::string::npos);
  // The connection breaks off in the header.
  hub_.repos["org/tiny"].lfs["model.safetensors"].size = 8 + header.size() + 100;
  hub_.cut_body_after = 50;
  auto cut = Fetch(client);
  EXPECT_EQ(cut.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(cut.status().message_key(), "error.hub.truncated");
  EXPECT_NE(cut.status().message().find(fmt::format("stops at byte 58; bytes 8-{} were asked for", 8 + header.size() - 1)),
            std::string::npos);
  // A file of 5 bytes.
  hub_.cut_body_after = UINT64_MAX;
  hub_.repos["org/tiny"].lfs["model.safetensors"].size = 5;
  auto tiny = Fetch(client);
  EXPECT_EQ(tiny.status().message_key(), "error.hub.file_too_short");
  // A header length of 1.
  hub_.repos["org/tiny"].lfs["model.safetensors"] = {testing::SafetensorsPrefix("{", 1), 100};
  auto one = Fetch(client);
  EXPECT_EQ(one.status().message_key(), "error.hub.header_too_short");
}

TEST_F(HubFetchTest, MalformedFilesAreParseErrorsNamingTheUrl) {
  hub_.AddTinyModel("org/tiny").files["config.json"] = "{\"model_type\": \"llama\",\n \"hidden_size\": }";
  FakeHttpClient client = hub_.Client();
  auto config = Fetch(client);
  EXPECT_EQ(config.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(config.status().message_key(), "error.json.syntax");
  EXPECT_NE(config.status().message().find("https://hub.test/org/tiny/resolve/main/config.json: not valid JSON (line 2"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(Repo("org/tiny") + "/refs/main"));

  hub_.repos["org/tiny"].files["config.json"] = "[1, 2]";
  EXPECT_EQ(Fetch(client).status().message_key(), "error.hub.config_not_object");

  // Python writes Infinity and NaN; the Hub serves them as they are.
  hub_.repos["org/tiny"].files["config.json"] = "{\"rope_scaling\": null, \"max\": Infinity, \"x\": NaN}";
  hub_.repos["org/tiny"].files["model.safetensors.index.json"] =
      "{\"weight_map\": {\"model.norm.weight\": \"../../../../etc/evil.safetensors\"}}";
  auto index = Fetch(client);
  EXPECT_EQ(index.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(index.status().message_key(), "error.hub.index_bad_shard");
  EXPECT_FALSE(fs::exists(Repo("org/tiny") + "/snapshots/" + kCommit + "/model.safetensors.index.json"));

  hub_.repos["org/tiny"].files["model.safetensors.index.json"] = "{\"metadata\": {}}";
  EXPECT_EQ(Fetch(client).status().message_key(), "error.hub.index_no_weight_map");
  hub_.repos["org/tiny"].files.erase("model.safetensors.index.json");

  const std::string bad = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,6]}}";
  hub_.repos["org/tiny"].lfs["model.safetensors"] = {testing::SafetensorsPrefix(bad, bad.size()), 8 + bad.size() + 8};
  auto header = Fetch(client);
  EXPECT_EQ(header.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(header.status().message_key(), "error.safetensors.span");
  EXPECT_NE(header.status().message().find("tensor 'w' spans 6 bytes"), std::string::npos);
}

TEST_F(HubFetchTest, ServerWithoutRepoCommitNamesTheSnapshotByItsEtag) {
  hub_.AddTinyModel("org/tiny");
  hub_.send_commit = false;
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->commit, GitBlobId(hub_.repos["org/tiny"].files["config.json"]));
  // Without a real commit the files are asked for at the revision given.
  for (const auto& request : client.requests) EXPECT_NE(request.url.find("/resolve/main/"), std::string::npos);
  env_.offline = true;
  FakeHttpClient none = NoNetwork();
  EXPECT_TRUE(Fetch(none).ok());
}

TEST_F(HubFetchTest, AHostileCommitNeverBecomesAPath) {
  hub_.AddTinyModel("org/tiny");
  hub_.commit_header = "../../../../tmp/evil";
  FakeHttpClient client = hub_.Client();
  auto result = Fetch(client);
  EXPECT_EQ(result.status().code(), core::StatusCode::kParseError);
  EXPECT_EQ(result.status().message_key(), "error.hub.bad_commit");
  EXPECT_FALSE(fs::exists(Repo("org/tiny") + "/snapshots"));
}

TEST_F(HubFetchTest, AnUnwritableCacheIsAnError) {
  hub_.AddTinyModel("org/tiny");
  ASSERT_TRUE(core::WriteFileAtomically(dir_ + "/file", "x").ok());
  env_.hub_cache = dir_ + "/file/hub";  // under a regular file: no directory can be made
  FakeHttpClient client = hub_.Client();
  auto result = Fetch(client);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message_key(), "error.hub.cache_write");
  EXPECT_NE(result.status().message().find(dir_ + "/file/hub"), std::string::npos);
}

TEST_F(HubFetchTest, ADamagedSavedHeaderSaysToDeleteIt) {
  hub_.AddTinyModel("org/tiny");
  FakeHttpClient client = hub_.Client();
  auto snapshot = Fetch(client);
  ASSERT_TRUE(snapshot.ok());
  const std::string path = snapshot->shards[0].header_path;
  std::string text = ReadAll(path);
  ASSERT_TRUE(core::WriteFileAtomically(path, text.substr(0, text.size() / 2)).ok());
  auto header = ReadShardHeader(snapshot->shards[0]);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.status().message_key(), "error.hub.sidecar_bad");
  EXPECT_NE(header.status().hint().find("delete"), std::string::npos);
}

TEST_F(HubFetchTest, ShardHeadersAreReadOverSeveralConnections) {
  FakeHub::Repo& repo = hub_.repos["org/many"];
  repo.files["config.json"] = "{}";
  std::string index = "{\"weight_map\": {";
  for (int i = 1; i <= 24; ++i) {
    const std::string file = fmt::format("model-{:05d}-of-00024.safetensors", i);
    const std::string header = fmt::format("{{\"t{}\":{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[0,{}]}}}}", i, i, 4 * i);
    repo.lfs[file] = {testing::SafetensorsPrefix(header, header.size()), 8 + header.size() + 4 * i};
    index += fmt::format("{}\"t{}\": \"{}\"", i == 1 ? "" : ", ", i, file);
  }
  repo.files["model.safetensors.index.json"] = index + "}}";
  std::mutex mutex;
  std::vector<std::unique_ptr<FakeHttpClient>> made;
  FetchOptions options;
  options.parallel = 4;
  options.make_client = [&]() -> core::Result<std::unique_ptr<HttpClient>> {
    std::lock_guard<std::mutex> lock(mutex);
    auto client = std::make_unique<FakeHttpClient>([this](const HttpRequest& r) { return hub_.Answer(r); });
    made.push_back(nullptr);
    return std::unique_ptr<HttpClient>(std::move(client));
  };
  FakeHttpClient client = hub_.Client();
  auto snapshot = FetchModelHeaders("org/many", "main", env_, client, options);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(made.size(), 3u);  // the given client and three more
  EXPECT_EQ(snapshot->network.requests, 2 + 2 * 24);
  ASSERT_EQ(snapshot->shards.size(), 24u);
  for (int i = 1; i <= 24; ++i) {
    auto header = ReadShardHeader(snapshot->shards[static_cast<size_t>(i - 1)]);
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    EXPECT_EQ(header->data_bytes, 4u * static_cast<unsigned>(i));
  }
  // A failing shard fails the fetch with that shard's error, whichever connection read it.
  std::error_code ec;
  fs::remove_all(env_.headers_cache, ec);
  repo.lfs["model-00007-of-00024.safetensors"].size = 9;
  auto failed = FetchModelHeaders("org/many", "main", env_, client, options);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message_key(), "error.hub.header_past_end");
  EXPECT_NE(failed.status().message().find("model-00007-of-00024.safetensors"), std::string::npos);
}

TEST(ContentRange, ParsesWhatServersSend) {
  auto r = ParseContentRange("bytes 0-7/548105171");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->first, 0u);
  EXPECT_EQ(r->last, 7u);
  EXPECT_EQ(r->total.value_or(0), 548105171u);
  r = ParseContentRange("Bytes 8-99/*");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->total.has_value());
  r = ParseContentRange("bytes */5");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->unsatisfied);
  for (const char* bad : {"", "bytes", "bytes 7-0/10", "bytes 0-10/10", "items 0-1/2", "bytes 0-1", "bytes a-b/c",
                          "bytes 0-1/99999999999999999999"}) {
    EXPECT_FALSE(ParseContentRange(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace gpuprobe::hub
