// Repo ids, revisions, URLs, cache folder names, ETags and the git blob id.
#include "hub/hub_names.h"

#include <gtest/gtest.h>

#include "hub/git_blob_id.h"

namespace gpuprobe::hub {
namespace {

TEST(HubNames, RepoIdsAsTheHubAcceptsThem) {
  for (const char* ok : {"Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B", "gpt2", "a/b", "org_x/name.v2"}) {
    EXPECT_TRUE(IsRepoId(ok)) << ok;
    EXPECT_TRUE(ValidateRepoId(ok).ok()) << ok;
  }
  for (const char* bad : {"", "/x", "x/", "a/b/c", "a--b/c", "a/b..c", "../x", "a/.hidden", "a/b-", "a b/c",
                          "./config.json", "https://huggingface.co/x/y"}) {
    EXPECT_FALSE(IsRepoId(bad)) << bad;
  }
  EXPECT_FALSE(IsRepoId(std::string(97, 'a')));
  auto status = ValidateRepoId("a/b/c");
  EXPECT_EQ(status.code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message_key(), "error.hub.bad_repo_id");
}

TEST(HubNames, Revisions) {
  for (const char* ok : {"main", "v1.0", "refs/pr/3", "0123456789abcdef0123456789abcdef01234567"}) {
    EXPECT_TRUE(ValidateRevision(ok).ok()) << ok;
  }
  for (const char* bad : {"", "..", "a/../b", "/main", "-x", "a b"}) EXPECT_FALSE(ValidateRevision(bad).ok()) << bad;
  EXPECT_TRUE(IsCommitHash("0123456789abcdef0123456789abcdef01234567"));
  EXPECT_FALSE(IsCommitHash("0123456789ABCDEF0123456789abcdef01234567"));
  EXPECT_FALSE(IsCommitHash("main"));
}

TEST(HubNames, CacheFolderAndUrls) {
  EXPECT_EQ(RepoFolderName("Qwen/Qwen3-8B"), "models--Qwen--Qwen3-8B");
  EXPECT_EQ(RepoFolderName("gpt2"), "models--gpt2");
  EXPECT_EQ(ResolveUrl("https://huggingface.co", "Qwen/Qwen3-8B", "main", "config.json"),
            "https://huggingface.co/Qwen/Qwen3-8B/resolve/main/config.json");
  // huggingface_hub quotes the revision whole and keeps the file name's slashes.
  EXPECT_EQ(ResolveUrl("https://hf-mirror.com", "a/b", "refs/pr/1", "sub dir/model.safetensors"),
            "https://hf-mirror.com/a/b/resolve/refs%2Fpr%2F1/sub%20dir/model.safetensors");
}

TEST(HubNames, PathComponentsAndEtags) {
  for (const char* ok : {"abc", "model-00001-of-00002.safetensors", "0123abcd", "a_b.c-d"}) {
    EXPECT_TRUE(IsSafePathComponent(ok)) << ok;
  }
  for (const char* bad : {"", ".", "..", "a/b", "../x", "a b", "x\n"}) EXPECT_FALSE(IsSafePathComponent(bad)) << bad;
  EXPECT_EQ(NormalizeEtag("\"abc\""), "abc");
  EXPECT_EQ(NormalizeEtag("W/\"abc\""), "abc");
  EXPECT_EQ(NormalizeEtag(" abc "), "abc");
}

TEST(GitBlobId, KnownDigests) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  // `printf 'hello\n' | git hash-object --stdin`
  EXPECT_EQ(GitBlobId("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
}

}  // namespace
}  // namespace gpuprobe::hub
