// AvailabilityGate and StoreGrowthPolicy, driven by a fake host and a fake
// clock.
#include "memfit/availability_gate.h"
#include "support/units.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

using ::memfit::testing::kGiB;

// A host whose figures the test sets, counting how often it is asked.
struct FakeHost {
  uint64_t ram_available_bytes = 0;
  uint64_t reserve_bytes = 0;
  int queries = 0;

  AvailabilityGate::HostQuery query() {
    return [this] {
      ++queries;
      HostMemoryStatus status;
      status.ram_available_bytes = ram_available_bytes;
      status.reserve_bytes = reserve_bytes;
      return status;
    };
  }
};

struct FakeClock {
  uint64_t now_ms = 1000;
  AvailabilityGate::MonotonicClockMs clock() {
    return [this] { return now_ms; };
  }
};

TEST(HostAvailabilityGate, GrowthStopsAtTheReserve) {
  // 10 GiB available, 7 GiB reserve: 3 GiB may be taken.
  FakeHost host{10 * kGiB, 7 * kGiB};
  FakeClock clock;
  AvailabilityGate gate(host.query(), clock.clock());
  EXPECT_TRUE(gate.may_grow(2 * kGiB));   // 2 of 3
  EXPECT_FALSE(gate.may_grow(2 * kGiB));  // 4 > 3: refused, not counted
  EXPECT_TRUE(gate.may_grow(1 * kGiB));   // exactly 3 of 3
  EXPECT_FALSE(gate.may_grow(1));         // nothing left
  EXPECT_EQ(host.queries, 1);
}

TEST(HostAvailabilityGate, OneQueryIsReusedFor250Ms) {
  FakeHost host{10 * kGiB, 7 * kGiB};
  FakeClock clock;
  AvailabilityGate gate(host.query(), clock.clock());
  EXPECT_TRUE(gate.may_grow(3 * kGiB));
  clock.now_ms += 249;  // still the same query: nothing left
  EXPECT_FALSE(gate.may_grow(1));
  EXPECT_EQ(host.queries, 1);
  // At 250 ms the host is asked again; say the growth shows in it now.
  host.ram_available_bytes = 7 * kGiB + 512;
  clock.now_ms += 1;
  EXPECT_FALSE(gate.may_grow(513));  // 512 left: refused, not counted
  EXPECT_EQ(host.queries, 2);
  EXPECT_TRUE(gate.may_grow(512));
  EXPECT_FALSE(gate.may_grow(1));
  EXPECT_EQ(host.queries, 2);
}

TEST(HostAvailabilityGate, NewQueryForgetsEarlierGrants) {
  FakeHost host{10 * kGiB, 7 * kGiB};
  FakeClock clock;
  AvailabilityGate gate(host.query(), clock.clock());
  EXPECT_TRUE(gate.may_grow(3 * kGiB));
  clock.now_ms += 250;
  // The host freed memory meanwhile and still shows 10 GiB available.
  EXPECT_TRUE(gate.may_grow(3 * kGiB));
  EXPECT_EQ(host.queries, 2);
}

TEST(HostAvailabilityGate, ReserveAboveAvailableRefusesAnyGrowth) {
  FakeHost host{5 * kGiB, 7 * kGiB};
  FakeClock clock;
  AvailabilityGate gate(host.query(), clock.clock());
  EXPECT_FALSE(gate.may_grow(1));
  EXPECT_TRUE(gate.may_grow(0));
}

TEST(HostAvailabilityGate, ClockGoingBackwardsQueriesAgain) {
  FakeHost host{10 * kGiB, 7 * kGiB};
  FakeClock clock;
  AvailabilityGate gate(host.query(), clock.clock());
  EXPECT_TRUE(gate.may_grow(kGiB));
  clock.now_ms -= 10;
  EXPECT_TRUE(gate.may_grow(3 * kGiB));  // a fresh query, grants reset
  EXPECT_EQ(host.queries, 2);
}

TEST(HostAvailabilityGate, RealHostGateAnswers) {
  // The real machine through query_host_memory: the gate must at least
  // grant nothing for free and refuse an absurd growth.
  AvailabilityGate gate{HostQueryOptions{}};
  EXPECT_TRUE(gate.may_grow(0));
  EXPECT_FALSE(gate.may_grow(UINT64_MAX));
}

// A store with a 100-byte budget on a host with `usable` bytes above the
// reserve.
struct StoreFixture {
  explicit StoreFixture(uint64_t usable) : host{usable, 0}, gate(host.query(), clock.clock()) {}
  FakeHost host;
  FakeClock clock;
  AvailabilityGate gate;
  StoreGrowthPolicy policy{100, gate};
};

TEST(HostStoreGrowthPolicy, UnderBudgetInsertsWhenTheHostAffordsIt) {
  StoreFixture store(1000);
  StoreDecision first = store.policy.decide(0, 40);
  EXPECT_EQ(first.action, StoreAction::kInsert);
  StoreDecision fill = store.policy.decide(40, 60);  // 40 + 60 = 100: exactly the budget
  EXPECT_EQ(fill.action, StoreAction::kInsert);
  // 1000 - 40 - 60 = 900 left to the gate.
  EXPECT_FALSE(store.gate.may_grow(901));
  EXPECT_TRUE(store.gate.may_grow(900));
}

TEST(HostStoreGrowthPolicy, UnderBudgetSkipsWhatTheHostCannotAfford) {
  StoreFixture store(50);
  EXPECT_EQ(store.policy.decide(0, 60).action, StoreAction::kSkip);
  EXPECT_EQ(store.policy.decide(0, 50).action, StoreAction::kInsert);
  EXPECT_EQ(store.policy.decide(50, 1).action, StoreAction::kSkip);  // 50 already granted
}

TEST(HostStoreGrowthPolicy, AtBudgetOnlyReplacesAndIsNeverRefused) {
  StoreFixture store(0);  // the host can give nothing at all
  StoreDecision decision = store.policy.decide(100, 30);
  EXPECT_EQ(decision.action, StoreAction::kReplace);
  EXPECT_EQ(decision.evict_bytes, 30u);  // 100 + 30 - 100
  EXPECT_EQ(store.host.queries, 0);      // no growth, no question
}

TEST(HostStoreGrowthPolicy, CrossingTheBudgetAsksOnlyForTheGrowth) {
  // 90 resident + 30 = 120: evict 20, and the store grows 90 -> 100.
  StoreFixture store(10);
  StoreDecision decision = store.policy.decide(90, 30);
  EXPECT_EQ(decision.action, StoreAction::kReplace);
  EXPECT_EQ(decision.evict_bytes, 20u);
  EXPECT_FALSE(store.gate.may_grow(1));  // the 10 bytes were granted

  StoreFixture poor(9);  // cannot afford those 10 bytes
  EXPECT_EQ(poor.policy.decide(90, 30).action, StoreAction::kSkip);
}

TEST(HostStoreGrowthPolicy, EntryLargerThanTheBudgetIsSkipped) {
  StoreFixture store(1000);
  EXPECT_EQ(store.policy.decide(0, 101).action, StoreAction::kSkip);
  EXPECT_EQ(store.host.queries, 0);
}

TEST(HostStoreGrowthPolicy, ResidentPastTheBudgetEvictsTheExcessToo) {
  StoreFixture store(0);
  // 150 resident (the budget was lowered) + 10: evict 60 to land on 100.
  StoreDecision decision = store.policy.decide(150, 10);
  EXPECT_EQ(decision.action, StoreAction::kReplace);
  EXPECT_EQ(decision.evict_bytes, 60u);
}

}  // namespace
}  // namespace memfit
