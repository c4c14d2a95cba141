#include "app/model_lookup.h"

#include <utility>
#include <vector>

#include "hub/hub_env.h"
#include "hub/hub_fetch.h"
#include "hub/hub_names.h"
#include "hub/hub_snapshot.h"
#include "knowledge/embedded_knowledge.h"
#include "model/model_catalog.h"

namespace gpuprobe::app {
namespace {

using core::Result;
using core::Status;

std::vector<checkpoint::HeaderSource> HeadersOf(const hub::HubSnapshot& snapshot) {
  std::vector<checkpoint::HeaderSource> out;
  for (const auto& shard : snapshot.shards) {
    const std::string path = shard.local_path.empty() ? shard.header_path : shard.local_path;
    out.push_back({path, [shard] { return hub::ReadShardHeader(shard); }});
  }
  return out;
}

Result<FoundModel> FromSnapshot(const std::string& repo_id, const hub::HubSnapshot& snapshot,
                                const model::HfKnowledge* hf) {
  FoundModel found;
  GPUPROBE_ASSIGN_OR_RETURN(found.source,
                            checkpoint::FromConfigAndHeaders(snapshot.config_path, repo_id, "hub",
                                                             snapshot.has_safetensors ? HeadersOf(snapshot)
                                                                                      : std::vector<checkpoint::HeaderSource>{},
                                                             hf));
  HubLookup lookup;
  lookup.repo_id = repo_id;
  lookup.commit = snapshot.commit;
  lookup.snapshot_dir = snapshot.snapshot_dir;
  lookup.requests = snapshot.network.requests;
  lookup.bytes_received = snapshot.network.bytes_received;
  lookup.seconds = snapshot.network.seconds;
  found.source.found_in = lookup.requests > 0 ? "hub" : "hub_cache";
  found.hub = std::move(lookup);
  return found;
}

}  // namespace

Result<FoundModel> FindModel(const std::string& model) {
  const model::HfKnowledge* hf = nullptr;
  if (auto k = knowledge::HfModels(); k.ok()) hf = *k;
  auto catalog = knowledge::ModelCatalog();
  if (!catalog.ok()) return catalog.status();

  // 1. This machine: standard input or a path.
  std::optional<checkpoint::ModelSource> local;
  if (model == "-" || checkpoint::PathExists(model)) {
    GPUPROBE_ASSIGN_OR_RETURN(local, checkpoint::ResolveLocalModel(model, hf));
    if (local) return FoundModel{std::move(*local), std::nullopt};
  }

  const bool repo_id = hub::IsRepoId(model);
  hub::HubEnv env;
  GPUPROBE_ASSIGN_OR_RETURN(env, hub::ReadHubEnv());
  // 2. The Hub cache, complete (the headers an earlier run saved included): no network. Then
  // a snapshot huggingface_hub left with files of its own.
  if (repo_id) {
    auto cached = hub::FindCachedModel(model, "main", env);
    if (cached.ok()) return FromSnapshot(model, *cached, hf);
  }
  GPUPROBE_ASSIGN_OR_RETURN(local, checkpoint::ResolveLocalModel(model, hf));
  if (local) return FoundModel{std::move(*local), std::nullopt};
  // 3. The catalogue by id or name.
  auto match = model::MatchCatalogEntry(**catalog, model);
  if (match && match->kind != model::CatalogMatchKind::kVariant) {
    auto source = checkpoint::FromCatalog(*match, hf);
    if (!source.ok()) return source.status();
    return FoundModel{std::move(*source), std::nullopt};
  }
  // 4. The Hub.
  std::string hub_problem;
  if (repo_id && !env.offline) {
    auto fetched = hub::FindOrFetchModel(model);
    if (fetched.ok()) return FromSnapshot(model, *fetched, hf);
    // A malformed answer is the Hub's error to report; an unreachable Hub, or a name it does
    // not hold (or holds gated), falls back to the catalogue's variant when there is one.
    const core::StatusCode code = fetched.status().code();
    const bool fall_back = code == core::StatusCode::kUnavailable || code == core::StatusCode::kNotFound ||
                           code == core::StatusCode::kInvalidArgument;
    if (!fall_back || (!match && code == core::StatusCode::kInvalidArgument)) return fetched.status();
    if (!match) {
      // Unreachable (exit 3), and still the closest catalogue ids for a mistyped name.
      auto close = model::SuggestCatalogIds(**catalog, model);
      if (close.empty()) return fetched.status();
      std::string suggestion, ids;
      for (const auto& id : close) {
        suggestion += (suggestion.empty() ? "did you mean '" : "' or '") + id;
        ids += (ids.empty() ? "'" : "', '") + id;
      }
      return fetched.status().WithContextKey("--model " + model + " (not in the catalogue; " + suggestion + "'?)",
                                             "error.model.not_in_catalogue", {{"model", model}, {"near_list", ids + "'"}});
    }
    hub_problem = fetched.status().message();
  } else if (repo_id) {
    hub_problem = env.offline_variable + " is set";
  }
  // 5. The catalogue's variant, saying why the Hub did not give the model itself.
  if (match) {
    auto source = checkpoint::FromCatalog(*match, hf);
    if (!source.ok()) return source.status();
    if (!hub_problem.empty()) source->shape.notes.push_back({"hub_not_used", hub_problem});
    return FoundModel{std::move(*source), std::nullopt};
  }
  return checkpoint::ModelNotFound(model, **catalog, hub_problem);
}

}  // namespace gpuprobe::app
