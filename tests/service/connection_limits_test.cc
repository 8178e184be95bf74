// ConnectionLimits: the total and per-address caps, which one refuses, and
// that a release makes room.
#include "service/connection_limits.h"

#include <gtest/gtest.h>

namespace memfit::service {
namespace {

TEST(ConnectionLimits, PerAddressCapRefusesThatAddressOnly) {
  ConnectionLimits limits(10, 2);
  EXPECT_EQ(limits.try_admit("127.0.0.2"), Admission::kAdmitted);
  EXPECT_EQ(limits.try_admit("127.0.0.2"), Admission::kAdmitted);
  EXPECT_EQ(limits.try_admit("127.0.0.2"), Admission::kOverAddress);
  EXPECT_EQ(limits.try_admit("127.0.0.3"), Admission::kAdmitted);
  EXPECT_EQ(limits.open_from("127.0.0.2"), 2u);  // the refusal counted nothing

  limits.release("127.0.0.2");
  EXPECT_EQ(limits.try_admit("127.0.0.2"), Admission::kAdmitted);
}

TEST(ConnectionLimits, TotalCapComesFirst) {
  ConnectionLimits limits(2, 2);
  EXPECT_EQ(limits.try_admit("a"), Admission::kAdmitted);
  EXPECT_EQ(limits.try_admit("b"), Admission::kAdmitted);
  // "a" is under its own cap, but the server is full.
  EXPECT_EQ(limits.try_admit("a"), Admission::kOverTotal);
  limits.release("b");
  EXPECT_EQ(limits.try_admit("a"), Admission::kAdmitted);
  EXPECT_EQ(limits.open_from("a"), 2u);
}

TEST(ConnectionLimits, ReleasesMakeRoomAgain) {
  // A total cap of 50, filled by 50 addresses, then emptied: 50 more admit.
  ConnectionLimits limits(50, 100);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(limits.try_admit(std::to_string(i)), Admission::kAdmitted);
  EXPECT_EQ(limits.try_admit("full"), Admission::kOverTotal);
  for (int i = 0; i < 50; ++i) limits.release(std::to_string(i));
  EXPECT_EQ(limits.open_from("0"), 0u);
  // A release without an admission changes nothing: it frees no room.
  limits.release("never");
  for (int i = 50; i < 100; ++i) {
    ASSERT_EQ(limits.try_admit(std::to_string(i)), Admission::kAdmitted);
  }
  EXPECT_EQ(limits.try_admit("full"), Admission::kOverTotal);
}

TEST(ConnectionLimits, ZeroCapAdmitsNothing) {
  ConnectionLimits limits(0, 5);
  EXPECT_EQ(limits.try_admit("a"), Admission::kOverTotal);
}

}  // namespace
}  // namespace memfit::service
