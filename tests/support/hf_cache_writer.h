// Writing a Hugging Face cache layout for tests, as huggingface_hub writes
// it (include/memfit/hf_cache.h has the layout):
//   <hub cache>/models--org--name/refs/<revision>      the commit, no newline
//   <hub cache>/models--org--name/snapshots/<commit>/<file>
//       a relative symbolic link, ../../blobs/<hash> (one more ../ per
//       folder inside the snapshot)
//   <hub cache>/models--org--name/blobs/<hash>         the bytes
// Blob names are made-up 64-hex digests, numbered in the order written.
#ifndef MEMFIT_TESTS_SUPPORT_HF_CACHE_WRITER_H_
#define MEMFIT_TESTS_SUPPORT_HF_CACHE_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "support/gguf_writer.h"
#include "support/safetensors_writer.h"

namespace memfit {

// A made-up 40-hex commit: `digit` (0-9, a-f) forty times.
std::string fake_commit(char digit);

class HfCacheWriter {
 public:
  // `hub_cache_dir` must exist. Every call aborts on I/O failure.
  explicit HfCacheWriter(std::string hub_cache_dir);

  // <hub cache>/models--org--name.
  std::string repo_dir(std::string_view repo_id) const;

  // Writes refs/<revision> holding `commit`.
  void set_ref(std::string_view repo_id, std::string_view revision, std::string_view commit) const;

  // Each writes a new blob and links snapshots/<commit>/<file> to it;
  // returns the blob's path.
  std::string add_file(std::string_view repo_id, std::string_view commit, std::string_view file,
                       std::string_view bytes);
  std::string add_safetensors(std::string_view repo_id, std::string_view commit,
                              std::string_view file, const std::vector<TensorSpec>& tensors);
  std::string add_gguf(std::string_view repo_id, std::string_view commit, std::string_view file,
                       const GgufWriter& gguf);

  // Links snapshots/<commit>/<file> to `target` as given (any text).
  void link(std::string_view repo_id, std::string_view commit, std::string_view file,
            const std::string& target) const;

 private:
  // A fresh blob path in the repo's blobs/ (its folder made).
  std::string new_blob(std::string_view repo_id);
  // Links the snapshot's `file` to `blob`, relatively.
  void link_blob(std::string_view repo_id, std::string_view commit, std::string_view file,
                 const std::string& blob) const;

  std::string hub_cache_dir_;
  int blobs_written_ = 0;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_HF_CACHE_WRITER_H_
