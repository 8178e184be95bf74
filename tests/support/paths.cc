#include "support/paths.h"

namespace memfit::testing {

const char* source_dir() { return MEMFIT_PATHS_SOURCE_DIR; }
const char* test_data_dir() { return MEMFIT_PATHS_TEST_DATA_DIR; }
const char* cli_path() { return MEMFIT_PATHS_CLI_PATH; }
#ifdef MEMFIT_HAVE_FAKE_GPU_LIBRARIES
const char* fake_nvml_path() { return MEMFIT_PATHS_FAKE_NVML; }
const char* fake_nvml_minimal_path() { return MEMFIT_PATHS_FAKE_NVML_MINIMAL; }
const char* fake_rocm_smi_path() { return MEMFIT_PATHS_FAKE_ROCM_SMI; }
#endif

}  // namespace memfit::testing
