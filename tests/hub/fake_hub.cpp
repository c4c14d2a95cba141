#include "hub/fake_hub.h"

#include <algorithm>

#include <fmt/format.h>

#include "hub/git_blob_id.h"

namespace gpuprobe::hub::testing {
namespace {

HttpResponse Make(long status, std::string body, const HttpRequest& request) {
  HttpResponse r;
  r.status = status;
  if (body.size() > request.max_body_bytes) {
    body.resize(request.max_body_bytes);
    r.body_over_limit = true;
  }
  r.bytes_received = body.size() + 200;
  r.body = std::move(body);
  r.final_url = request.url;
  return r;
}

HttpResponse ErrorAnswer(long status, const std::string& code, const HttpRequest& request) {
  HttpResponse r = Make(status, "{\"error\":\"" + code + "\"}", request);
  r.headers.Set("X-Error-Code", code);
  r.first_headers = r.headers;
  return r;
}

}  // namespace

std::string SafetensorsPrefix(const std::string& header, std::uint64_t declared_length) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((declared_length >> (8 * i)) & 0xff);
  return out + header;
}

std::string TinyHeader(std::uint64_t* data_bytes) {
  // hidden 64, 2 layers, 4 heads, 2 KV heads (head_dim 16), MLP 128, vocab 1000, untied.
  std::vector<std::pair<std::string, std::vector<int>>> tensors = {
      {"lm_head.weight", {1000, 64}}, {"model.embed_tokens.weight", {1000, 64}}, {"model.norm.weight", {64}}};
  for (int i = 0; i < 2; ++i) {
    const std::string p = fmt::format("model.layers.{}.", i);
    tensors.push_back({p + "input_layernorm.weight", {64}});
    tensors.push_back({p + "mlp.down_proj.weight", {64, 128}});
    tensors.push_back({p + "mlp.gate_proj.weight", {128, 64}});
    tensors.push_back({p + "mlp.up_proj.weight", {128, 64}});
    tensors.push_back({p + "post_attention_layernorm.weight", {64}});
    tensors.push_back({p + "self_attn.k_proj.weight", {32, 64}});
    tensors.push_back({p + "self_attn.o_proj.weight", {64, 64}});
    tensors.push_back({p + "self_attn.q_proj.weight", {64, 64}});
    tensors.push_back({p + "self_attn.v_proj.weight", {32, 64}});
  }
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::uint64_t offset = 0;
  for (const auto& [name, shape] : tensors) {
    std::uint64_t n = 1;
    std::string dims;
    for (int d : shape) {
      n *= static_cast<std::uint64_t>(d);
      dims += (dims.empty() ? "" : ",") + std::to_string(d);
    }
    header += fmt::format(",\"{}\":{{\"dtype\":\"BF16\",\"shape\":[{}],\"data_offsets\":[{},{}]}}", name, dims, offset,
                          offset + 2 * n);
    offset += 2 * n;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  *data_bytes = offset;
  return header;
}

FakeHub::Repo& FakeHub::AddTinyModel(const std::string& repo_id) {
  Repo& repo = repos[repo_id];
  repo.files["config.json"] =
      "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128, \"num_attention_heads\": 4, "
      "\"num_key_value_heads\": 2, \"num_hidden_layers\": 2, \"vocab_size\": 1000, \"rms_norm_eps\": 1e-05}\n";
  std::uint64_t data = 0;
  const std::string header = TinyHeader(&data);
  repo.lfs["model.safetensors"] = {SafetensorsPrefix(header, header.size()), 8 + header.size() + data};
  return repo;
}

core::Result<HttpResponse> FakeHub::Answer(const HttpRequest& request) const {
  const std::string cdn = std::string(kEndpoint) + "/cdn/";
  if (request.url.rfind(cdn, 0) == 0) {
    // /cdn/<org>/<name>/<file>: the weights, with ranges.
    std::string rest = request.url.substr(cdn.size());
    size_t a = rest.find('/'), b = rest.find('/', a + 1);
    const Repo::Lfs& file = repos.at(rest.substr(0, b)).lfs.at(rest.substr(b + 1));
    std::uint64_t first = 0, last = file.size - 1;
    long status = 200;
    if (request.range && !ignore_range) {
      first = request.range->first;
      last = std::min(request.range->last, file.size - 1);
      status = 206;
    }
    std::uint64_t length = last - first + 1;
    std::uint64_t sent = std::min<std::uint64_t>({length, cut_body_after, request.max_body_bytes + 1, 1 << 20});
    std::string body;
    for (std::uint64_t i = first; i < first + sent; ++i) body += i < file.prefix.size() ? file.prefix[i] : '\0';
    HttpResponse r = Make(status, body, request);
    r.body_incomplete = sent < length && sent < request.max_body_bytes + 1 && !r.body_over_limit;
    if (status == 206) r.headers.Set("Content-Range", fmt::format("bytes {}-{}/{}", first, last, file.size));
    r.headers.Set("ETag", "\"cdn-etag\"");
    return r;
  }
  const std::string prefix = std::string(kEndpoint) + "/";
  std::string path = request.url.substr(prefix.size());
  size_t resolve = path.find("/resolve/");
  const std::string repo_id = path.substr(0, resolve);
  std::string rest = path.substr(resolve + 9);
  const std::string revision = rest.substr(0, rest.find('/'));
  const std::string file = rest.substr(rest.find('/') + 1);
  auto repo = repos.find(repo_id);
  if (repo == repos.end()) return ErrorAnswer(401, "RepoNotFound", request);
  if (!repo->second.gated_token.empty()) {
    if (request.bearer_token.empty()) return ErrorAnswer(401, "GatedRepo", request);
    if (request.bearer_token != repo->second.gated_token) return ErrorAnswer(403, "GatedRepo", request);
  }
  if (revision != "main" && revision != kCommit) return ErrorAnswer(404, "RevisionNotFound", request);
  auto plain = repo->second.files.find(file);
  if (plain != repo->second.files.end()) {
    HttpResponse r = Make(200, plain->second, request);
    r.headers.Set("ETag", "\"" + GitBlobId(plain->second) + "\"");
    if (send_commit) r.headers.Set("X-Repo-Commit", commit_header);
    r.first_headers = r.headers;
    return r;
  }
  auto lfs = repo->second.lfs.find(file);
  if (lfs == repo->second.lfs.end()) return ErrorAnswer(404, "EntryNotFound", request);
  // The 302 is followed, as libcurl follows it: the CDN's answer, with the Hub's headers first.
  HttpRequest follow = request;
  follow.url = cdn + repo_id + "/" + file;
  follow.bearer_token.clear();
  auto r = Answer(follow);
  if (!r.ok()) return r;
  r->first_headers = HttpHeaders();
  if (send_commit) r->first_headers.Set("X-Repo-Commit", commit_header);
  r->first_headers.Set("X-Linked-Etag", "\"" + std::string(64, 'e') + "\"");
  r->first_headers.Set("X-Linked-Size", std::to_string(lfs->second.size));
  r->redirects = 1;
  r->bytes_received += 300;
  return r;
}

}  // namespace gpuprobe::hub::testing
