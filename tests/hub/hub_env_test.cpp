// HubEnv: the variables huggingface_hub users already set, resolved as huggingface_hub does.
#include "hub/hub_env.h"

#include <gtest/gtest.h>

namespace gpuprobe::hub {
namespace {

HubEnv Resolve(const EnvMap& env, const TokenFileReader& reader = nullptr) {
  auto resolved = ResolveHubEnv(env, reader);
  EXPECT_TRUE(resolved.ok()) << resolved.status().ToString();
  return resolved.ok() ? *resolved : HubEnv();
}

TEST(HubEnv, DefaultsFollowHuggingfaceHub) {
  HubEnv env = Resolve({{"HOME", "/home/u"}});
  EXPECT_EQ(env.endpoint, "https://huggingface.co");
  EXPECT_FALSE(env.endpoint_from_env);
  EXPECT_EQ(env.hf_home, "/home/u/.cache/huggingface");
  EXPECT_EQ(env.hub_cache, "/home/u/.cache/huggingface/hub");
  EXPECT_EQ(env.token_path, "/home/u/.cache/huggingface/token");
  EXPECT_EQ(env.headers_cache, "/home/u/.cache/gpuprobe/hub-headers");
  EXPECT_TRUE(env.token.empty());
  EXPECT_EQ(env.token_source, TokenSource::kNone);
  EXPECT_FALSE(env.offline);
}

TEST(HubEnv, CacheRootPrecedence) {
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}}).hub_cache, "/x/huggingface/hub");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}}).headers_cache, "/x/gpuprobe/hub-headers");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}, {"HF_HOME", "/hf"}}).hub_cache, "/hf/hub");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}}).hub_cache, "/legacy");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}, {"HF_HUB_CACHE", "/c/"}})
                .hub_cache,
            "/c");
  // "~" is expanded as os.path.expanduser does; an empty variable counts as unset.
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_HOME", "~/hf"}}).hub_cache, "/h/hf/hub");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_HUB_CACHE", ""}}).hub_cache, "/h/.cache/huggingface/hub");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HF_TOKEN_PATH", "~/t"}}).token_path, "/h/t");
}

TEST(HubEnv, NoCacheDirectoryIsAnError) {
  auto env = ResolveHubEnv({});
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(env.status().message_key(), "error.hub.no_cache_dir");
  // Only the Hub cache given: gpuprobe's own directory still needs XDG_CACHE_HOME or HOME.
  EXPECT_FALSE(ResolveHubEnv({{"HF_HUB_CACHE", "/c"}}).ok());
  EXPECT_TRUE(ResolveHubEnv({{"HF_HUB_CACHE", "/c"}, {"XDG_CACHE_HOME", "/x"}}).ok());
}

TEST(HubEnv, EndpointIsAMirrorUrlWithoutTrailingSlash) {
  HubEnv env = Resolve({{"HOME", "/h"}, {"HF_ENDPOINT", "https://hf-mirror.com//"}});
  EXPECT_EQ(env.endpoint, "https://hf-mirror.com");
  EXPECT_TRUE(env.endpoint_from_env);
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"HF_ENDPOINT", "http://127.0.0.1:8080"}}).endpoint, "http://127.0.0.1:8080");
  for (const char* bad : {"hf-mirror.com", "ftp://x", "https://", "https://a b", "file:///etc"}) {
    auto resolved = ResolveHubEnv({{"HOME", "/h"}, {"HF_ENDPOINT", bad}});
    ASSERT_FALSE(resolved.ok()) << bad;
    EXPECT_EQ(resolved.status().message_key(), "error.hub.bad_endpoint") << bad;
    EXPECT_NE(resolved.status().message().find("HF_ENDPOINT"), std::string::npos);
  }
}

TEST(HubEnv, TokenPrecedenceAndCleaning) {
  int reads = 0;
  TokenFileReader reader = [&reads](const std::string& path) -> std::optional<std::string> {
    ++reads;
    EXPECT_EQ(path, "/hf/token");
    return std::string("hf_file\n");
  };
  HubEnv env = Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HF_TOKEN", " hf_env\r\n"}, {"HUGGING_FACE_HUB_TOKEN", "x"}},
                       reader);
  EXPECT_EQ(env.token, "hf_env");
  EXPECT_EQ(env.token_source, TokenSource::kHfToken);
  EXPECT_EQ(reads, 0);  // the file is not read when a variable holds a token
  env = Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HUGGING_FACE_HUB_TOKEN", "hf_old"}}, reader);
  EXPECT_EQ(env.token, "hf_old");
  EXPECT_EQ(env.token_source, TokenSource::kHuggingFaceHubToken);
  env = Resolve({{"HOME", "/h"}, {"HF_HOME", "/hf"}, {"HF_TOKEN", "  "}}, reader);
  EXPECT_EQ(env.token, "hf_file");
  EXPECT_EQ(env.token_source, TokenSource::kTokenFile);
  EXPECT_EQ(reads, 1);
  // HF_HUB_DISABLE_IMPLICIT_TOKEN: known, not sent.
  env = Resolve({{"HOME", "/h"}, {"HF_TOKEN", "hf_env"}, {"HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"}});
  EXPECT_TRUE(env.token.empty());
  EXPECT_EQ(env.token_source, TokenSource::kHfToken);
  EXPECT_TRUE(env.implicit_token_disabled);
}

TEST(HubEnv, OfflineTakesHuggingfaceHubsTrueValues) {
  for (const char* value : {"1", "ON", "yes", "True", "true"}) {
    HubEnv env = Resolve({{"HOME", "/h"}, {"HF_HUB_OFFLINE", value}});
    EXPECT_TRUE(env.offline) << value;
    EXPECT_EQ(env.offline_variable, "HF_HUB_OFFLINE");
  }
  for (const char* value : {"0", "false", "no", "2"}) {
    EXPECT_FALSE(Resolve({{"HOME", "/h"}, {"HF_HUB_OFFLINE", value}}).offline) << value;
  }
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"TRANSFORMERS_OFFLINE", "1"}}).offline_variable, "TRANSFORMERS_OFFLINE");
  // HF_HUB_OFFLINE decides when set, as `HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE` does.
  EXPECT_FALSE(Resolve({{"HOME", "/h"}, {"HF_HUB_OFFLINE", "0"}, {"TRANSFORMERS_OFFLINE", "1"}}).offline);
}

TEST(HubEnv, CaBundleForInspectingProxies) {
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"CURL_CA_BUNDLE", "/c.pem"}}).ca_bundle, "/c.pem");
  EXPECT_EQ(Resolve({{"HOME", "/h"}, {"CURL_CA_BUNDLE", "/c.pem"}, {"REQUESTS_CA_BUNDLE", "/r.pem"}}).ca_bundle,
            "/r.pem");
}

}  // namespace
}  // namespace gpuprobe::hub
