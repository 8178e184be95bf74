/* The C API from plain C: open the bundled example, estimate, check a
 * prefill, ask the gate, list the request fields, and free everything. Exits non-zero on the first
 * wrong figure. Expected values are the hand-computed ones of
 * tests/engines/mlxcel/estimate_test.cc and tests/guard/prefill_guard_test.cc.
 * Usage: capi_test EXAMPLE_DIR QWEN3_8B_DIR */
#include <stdio.h>
#include <string.h>

#include "memfit/memfit.h"

static int failures = 0;

#define CHECK_EQ(actual, expected)                                                   \
  do {                                                                               \
    unsigned long long a_ = (unsigned long long)(actual);                            \
    unsigned long long e_ = (unsigned long long)(expected);                          \
    if (a_ != e_) {                                                                  \
      fprintf(stderr, "%s:%d: %s = %llu, expected %llu\n", __FILE__, __LINE__,       \
              #actual, a_, e_);                                                      \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: capi_test EXAMPLE_DIR QWEN3_8B_DIR\n");
    return 2;
  }
  char* error = NULL;
  memfit_model* model = NULL;

  /* A missing path: an error status, a message, no handle. */
  CHECK_EQ(memfit_model_open("/nonexistent/model", &model, &error), MEMFIT_ERROR);
  CHECK_EQ(model == NULL, 1);
  CHECK_EQ(error != NULL && strstr(error, "no such file or folder") != NULL, 1);
  memfit_string_free(error);

  CHECK_EQ(memfit_model_open(argv[1], &model, &error), MEMFIT_OK);
  CHECK_EQ(error == NULL, 1);
  memfit_estimate_request request = {8192, 1, 0, 64ull << 30};
  memfit_estimate_result result;
  CHECK_EQ(memfit_estimate(model, &request, &result, &error), MEMFIT_OK);
  CHECK_EQ(result.weights_bytes, 8307783680ull);
  CHECK_EQ(result.kv_bytes, 1342177280ull);
  CHECK_EQ(result.headroom_bytes, 2114845440ull);
  CHECK_EQ(result.total_bytes, 11764806400ull);
  CHECK_EQ(result.budget_bytes, 64ull << 30);
  CHECK_EQ(result.fits, 1);

  char* json = NULL;
  CHECK_EQ(memfit_estimate_json(model, &request, &json, &error), MEMFIT_OK);
  CHECK_EQ(json != NULL && strstr(json, "\"total_bytes\":11764806400") != NULL, 1);
  memfit_string_free(json);

  /* The same request as a JSON object: the same total. */
  char request_json[4096];
  snprintf(request_json, sizeof(request_json),
           "{\"model\": \"%s\", \"max_tokens\": 8192, \"memory_limit\": \"64GiB\"}", argv[1]);
  char* response = NULL;
  CHECK_EQ(memfit_estimate_request_json(request_json, &response), MEMFIT_OK);
  CHECK_EQ(response != NULL && strstr(response, "\"total_bytes\":11764806400") != NULL, 1);
  memfit_string_free(response);
  /* A usage error: MEMFIT_INVALID_ARGUMENT and the error object with its kind and field. */
  CHECK_EQ(memfit_estimate_request_json("{\"model\": \"m\", \"batch\": 0}", &response),
           MEMFIT_INVALID_ARGUMENT);
  CHECK_EQ(response != NULL &&
               strcmp(response, "{\"error\":{\"kind\":\"usage\",\"message\":\"batch: expected a "
                                "positive integer, got 0\",\"field\":\"batch\"}}") == 0,
           1);
  memfit_string_free(response);
  /* A model that cannot be read: MEMFIT_ERROR, kind input. */
  CHECK_EQ(memfit_estimate_request_json("{\"model\": \"/nonexistent/model\"}", &response),
           MEMFIT_ERROR);
  CHECK_EQ(response != NULL && strstr(response, "\"kind\":\"input\"") != NULL, 1);
  memfit_string_free(response);
  CHECK_EQ(memfit_estimate_request_json(NULL, &response), MEMFIT_INVALID_ARGUMENT);
  memfit_string_free(response);
  CHECK_EQ(memfit_estimate_request_json("{}", NULL), MEMFIT_INVALID_ARGUMENT);

  /* The same request as the CLI's flag texts ("32k" tokens, as --max-tokens
   * takes it), with the text report: int8 KV at 32,768 tokens is
   * 40 layers x 2 x 8 KV heads x 128 x 1 B x 32,768 = 2,684,354,560; headroom
   * 0.20 x (8,307,783,680 + 2,684,354,560) + 184,853,248 activation =
   * 2,383,280,896; total 13,375,419,136 (12.46 GiB). */
  snprintf(request_json, sizeof(request_json),
           "{\"model\": \"%s\", \"max_tokens\": \"32k\", \"kv_cache_mode\": \"int8\", "
           "\"memory_limit\": \"64GiB\"}",
           argv[1]);
  CHECK_EQ(memfit_run_request_json(request_json, MEMFIT_REQUEST_FLAG_TEXTS | MEMFIT_REQUEST_WITH_TEXT,
                                   &response),
           MEMFIT_OK);
  CHECK_EQ(response != NULL && strstr(response, "\"kv_bytes_total\":2684354560") != NULL, 1);
  CHECK_EQ(response != NULL && strstr(response, "\"total_bytes\":13375419136") != NULL, 1);
  CHECK_EQ(response != NULL && strstr(response, "\"text\":\"memfit ") != NULL, 1);
  CHECK_EQ(response != NULL && strstr(response, "FITS: 12.46 GiB of 64.00 GiB (51.54 GiB to spare)") != NULL, 1);
  memfit_string_free(response);
  /* Without the option no "text"; options 0 is memfit_estimate_request_json. */
  snprintf(request_json, sizeof(request_json),
           "{\"model\": \"%s\", \"max_tokens\": 8192, \"memory_limit\": \"64GiB\"}", argv[1]);
  CHECK_EQ(memfit_run_request_json(request_json, 0, &response), MEMFIT_OK);
  CHECK_EQ(response != NULL && strstr(response, "\"total_bytes\":11764806400") != NULL, 1);
  CHECK_EQ(response != NULL && strstr(response, "\"text\":") == NULL, 1);
  memfit_string_free(response);
  /* Flag texts are texts: a typed count is refused by name; an unknown bit too. */
  CHECK_EQ(memfit_run_request_json("{\"model\": \"m\", \"max_tokens\": 8192}",
                                   MEMFIT_REQUEST_FLAG_TEXTS, &response),
           MEMFIT_INVALID_ARGUMENT);
  CHECK_EQ(response != NULL &&
               strcmp(response, "{\"error\":{\"kind\":\"usage\",\"message\":\"max_tokens: expected a "
                                "flag's text, got 8192\",\"field\":\"max_tokens\"}}") == 0,
           1);
  memfit_string_free(response);
  CHECK_EQ(memfit_run_request_json("{\"model\": \"m\", \"batch\": \"0\"}", MEMFIT_REQUEST_FLAG_TEXTS,
                                   &response),
           MEMFIT_INVALID_ARGUMENT);
  CHECK_EQ(response != NULL && strstr(response, "\"message\":\"batch: expected a positive integer, got 0\"") != NULL,
           1);
  memfit_string_free(response);
  CHECK_EQ(memfit_run_request_json("{\"model\": \"m\"}", 4, &response), MEMFIT_INVALID_ARGUMENT);
  CHECK_EQ(response != NULL && strstr(response, "\"field\":\"options\"") != NULL, 1);
  memfit_string_free(response);
  CHECK_EQ(memfit_run_request_json("{}", 0, NULL), MEMFIT_INVALID_ARGUMENT);

  /* The engines and every request field, as GET /v1/engines lists them. */
  char* engines = NULL;
  CHECK_EQ(memfit_engines_json(&engines), MEMFIT_OK);
  CHECK_EQ(engines != NULL && strstr(engines, "{\"engines\":[{\"name\":\"mlxcel\",") == engines, 1);
  CHECK_EQ(engines != NULL &&
               strstr(engines, "{\"name\":\"ctx_size\",\"flags\":[\"-c\",\"--ctx-size\"]") != NULL,
           1);
  CHECK_EQ(engines != NULL && strstr(engines, "\"common_fields\":[{\"name\":\"model\"") != NULL, 1);
  memfit_string_free(engines);
  CHECK_EQ(memfit_engines_json(NULL), MEMFIT_INVALID_ARGUMENT);

  memfit_estimate_request zero = {0, 1, 0, 0};
  CHECK_EQ(memfit_estimate(model, &zero, &result, &error), MEMFIT_INVALID_ARGUMENT);
  memfit_string_free(error);
  memfit_model_free(model);

  /* Prefill admission on Qwen3-8B: peak 1,508,114,432 for 10,000 tokens. */
  CHECK_EQ(memfit_model_open(argv[2], &model, &error), MEMFIT_OK);
  memfit_prefill_request prefill = {"req-c", 10000, 0, 10ull << 30, 11ull << 30, 2048, 0};
  memfit_admission admission;
  CHECK_EQ(memfit_check_prefill(model, &prefill, &admission), MEMFIT_OK);
  CHECK_EQ(admission.admitted, 0);
  CHECK_EQ(admission.peak_bytes, 1508114432ull);
  CHECK_EQ(admission.estimated_bytes, 12245532672ull);
  CHECK_EQ(strcmp(admission.request_id, "req-c"), 0);
  CHECK_EQ(admission.message != NULL, 1);
  memfit_admission_clear(&admission);
  CHECK_EQ(admission.message == NULL, 1);
  prefill.hard_limit_bytes = 12ull << 30;
  CHECK_EQ(memfit_check_prefill(model, &prefill, &admission), MEMFIT_OK);
  CHECK_EQ(admission.admitted, 1);
  memfit_admission_clear(&admission);
  memfit_model_free(model);

  memfit_gate* gate = NULL;
  CHECK_EQ(memfit_gate_new(&gate), MEMFIT_OK);
  CHECK_EQ(memfit_gate_may_grow(gate, 1), 1);
  CHECK_EQ(memfit_gate_may_grow(gate, UINT64_MAX), 0);
  memfit_gate_free(gate);
  memfit_model_free(NULL);
  memfit_gate_free(NULL);

  if (failures == 0) printf("capi_test: all checks passed (memfit %s)\n", memfit_version());
  return failures == 0 ? 0 : 1;
}
