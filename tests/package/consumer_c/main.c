/* A C program outside the memfit tree, compiled against an installed memfit
 * the way docs/c-api.md says (tests/package/package_test.sh):
 *   cc main.c $(pkg-config --cflags --libs memfit_c)
 * Checks the library's version and the bundled example's figures, prints
 * them, and exits 1 on the first wrong one (2 on a usage error).
 * Usage: consumer_c EXAMPLE_DIR EXPECTED_VERSION
 * (EXAMPLE_DIR: examples/Qwen3-14B-MLX-4bit) */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "memfit/memfit.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: consumer_c EXAMPLE_DIR EXPECTED_VERSION\n");
    return 2;
  }
  if (strcmp(memfit_version(), argv[2]) != 0) {
    fprintf(stderr, "memfit_version() = %s, expected %s\n", memfit_version(), argv[2]);
    return 1;
  }

  char* error = NULL;
  memfit_model* model = NULL;
  if (memfit_model_open(argv[1], &model, &error) != MEMFIT_OK) {
    fprintf(stderr, "memfit_model_open: %s\n", error ? error : "(no message)");
    memfit_string_free(error);
    return 1;
  }
  memfit_estimate_request request = {8192, 1, 0, 64ull << 30};
  memfit_estimate_result result;
  memfit_status status = memfit_estimate(model, &request, &result, &error);
  memfit_model_free(model);
  if (status != MEMFIT_OK) {
    fprintf(stderr, "memfit_estimate: %s\n", error ? error : "(no message)");
    memfit_string_free(error);
    return 1;
  }

  /* Weights: the shard index's metadata.total_size, 8,307,783,680 bytes
   * (the shards are not beside it, so the index is taken unverified).
   * KV per token: 40 layers x 2 (K and V) x 8 KV heads x 128 head_dim
   * x 2 bytes (fp16) = 163,840; at 8192 tokens (a multiple of the
   * 256-token block), 163,840 x 8,192 = 1,342,177,280. */
  const uint64_t expected_weights_bytes = 8307783680ull;
  const uint64_t expected_kv_bytes_per_token = 163840ull;
  const uint64_t expected_kv_bytes = 1342177280ull;
  printf("memfit %s: weights_bytes=%" PRIu64 " kv_bytes_per_token=%" PRIu64 " kv_bytes=%" PRIu64
         "\n", memfit_version(), result.weights_bytes, result.kv_bytes_per_token, result.kv_bytes);
  if (result.weights_bytes != expected_weights_bytes ||
      result.kv_bytes_per_token != expected_kv_bytes_per_token ||
      result.kv_bytes != expected_kv_bytes) {
    fprintf(stderr, "expected weights_bytes=%" PRIu64 " kv_bytes_per_token=%" PRIu64
            " kv_bytes=%" PRIu64 "\n", expected_weights_bytes, expected_kv_bytes_per_token,
            expected_kv_bytes);
    return 1;
  }
  return 0;
}
