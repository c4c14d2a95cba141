// Which component printed a text, read from its structure rather than from its words: the
// package paths of Python traceback frames ("site-packages/vllm/"), the module of an exception
// class ("pynvml.NVMLError_..."), C++ source files ("ProcessGroupNCCL.cpp", "ggml-cuda.cu"),
// log prefixes ("NVRM:", "nvidia-container-cli:", "[TRT]", klog's "E0531 ... main.go:123]")
// and the paths a component owns ("/usr/lib/wsl/lib", "/var/lib/dkms"). The table is data
// (data/knowledge/emitters.json): each emitter has an id, a name, the layer it lives in and the
// evidence that names it. The same words mean different things in different components
// ("Insufficient Permissions" from `nvidia-smi mig`, an out-of-memory from the JVM), so entries
// can be refined by the emitter (KnowledgeEntry::refines / when_emitters).
//
// Thread safety: immutable after Parse(); Detect() is safe to call concurrently.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "doctor/knowledge_base.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace gpuprobe::doctor {

struct Emitter {
  std::string id;    ///< "vllm", "nvrm", "jvm"
  LocalText name;    ///< as users write it: "vLLM", "NVIDIA kernel driver (NVRM)", "Java VM"
  std::string layer; ///< one of kLayers (knowledge_base.h): where its faults live
  bool gpu = true;   ///< false for a component that is not a GPU stack (the JVM, Node.js, dockerd)
};

struct EmitterHit {
  const Emitter* emitter = nullptr;
  std::string evidence;  ///< the text that named it ("site-packages/vllm/"), at most 80 bytes
  size_t position = 0;   ///< where the evidence starts in the text
};

class EmitterTable {
 public:
  /// Parses the table; ParseError naming the emitter for a bad regex, layer or field.
  static core::Result<EmitterTable> Parse(std::string_view json_text);
  /// The embedded data/knowledge/emitters.json.
  static core::Result<const EmitterTable*> Embedded();

  EmitterTable();
  EmitterTable(EmitterTable&&) noexcept;
  EmitterTable& operator=(EmitterTable&&) noexcept;
  ~EmitterTable();

  /// Every emitter whose evidence is in `text`, in the table's order (the most specific
  /// component first: an engine before the framework under it, the framework before Python).
  /// Reads at most the first 1 MiB of `text`.
  std::vector<EmitterHit> Detect(std::string_view text) const;
  const Emitter* Find(std::string_view id) const;
  const std::vector<Emitter>& emitters() const { return emitters_; }

 private:
  std::vector<Emitter> emitters_;
  // Per emitter, its evidence combined into one pattern (case-sensitive where the evidence
  // says so: a log prefix is printed in one case).
  std::vector<std::unique_ptr<re2::RE2>> patterns_;
};

/// Whether any of `hits` is emitter `id`.
bool HasEmitter(const std::vector<EmitterHit>& hits, std::string_view id);

}  // namespace gpuprobe::doctor
