// Where `plan --model X` finds its model, in the order the ecosystem's own tools use:
//   1. what is on this machine: '-', a config.json, a checkpoint directory, a .gguf file;
//   2. a Hub id whose files the Hub cache already holds (huggingface_hub's snapshots, and the
//      shard headers an earlier `plan` saved there): nothing is read from the network;
//   3. the checked-in catalogue, by the id or the name after the '/';
//   4. the Hub itself, unless HF_HUB_OFFLINE is set: config.json and the safetensors headers
//      only (hub/hub_fetch.h), kept in the cache for the next run;
//   5. the catalogue entry of the same architecture (-Instruct, -FP8, -2507 ... variants),
//      saying which entry was used and how the name differs.
// A name nothing resolves is an InvalidArgument with "did you mean"; a Hub that cannot be
// reached for a name the catalogue does not know is Unavailable naming the URL (exit 3).
//
// Thread safety: reads files, the environment and the network; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checkpoint/model_source.h"
#include "core/status.h"

namespace gpuprobe::app {

/// What the Hub step did.
struct HubLookup {
  std::string repo_id;
  std::string commit;
  std::string snapshot_dir;
  int requests = 0;                 ///< 0: everything came from the cache
  std::uint64_t bytes_received = 0;
  double seconds = 0;
};

struct FoundModel {
  checkpoint::ModelSource source;
  std::optional<HubLookup> hub;
};

/// Resolves `model` (see the file comment) with transformers' structure (knowledge::HfModels).
core::Result<FoundModel> FindModel(const std::string& model);

}  // namespace gpuprobe::app
