// GET /v1/hardware: the hardware table the gpu and mac fields read
// (memfit/hardware.h), as `memfit hardware --json` prints it.
#include <gtest/gtest.h>

#include <string>

#include "memfit/hardware.h"
#include "service/service_fixture.h"
#include "support/run_command.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::make_service;

TEST(ServiceHardware, AnswersTheTableAsTheCliPrintsIt) {
  auto service = make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  HttpResponse r = service->handle("GET", "/v1/hardware", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const json answer = body_json(r);
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(answer, json::parse(hardware_to_json(**table).dump()));
  testing::CommandResult cli = testing::run_memfit({"hardware", "--json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(answer, json::parse(cli.out));
  // The H100 80GB as its driver reports it: 81,559 MiB = 85,520,809,984 B.
  bool found = false;
  for (const json& gpu : answer["gpus"]) {
    if (gpu["id"] != "h100-80gb-sxm") continue;
    found = true;
    EXPECT_EQ(gpu["memory_bytes"], 85520809984u);
    EXPECT_EQ(gpu["memory_basis"], "printed");
  }
  EXPECT_TRUE(found);
  EXPECT_GE(answer["gpus"].size(), 40u);
  EXPECT_GE(answer["macs"].size(), 20u);
}

TEST(ServiceHardware, OnlyGet) {
  auto service = make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  HttpResponse r = service->handle("POST", "/v1/hardware", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(testing::error_message(r), "/v1/hardware accepts GET, not 'POST'");
}

}  // namespace
}  // namespace memfit
