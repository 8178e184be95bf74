// A process's first call (memfit/speed.h, first_call_seconds): the
// one-time cost of its first forward pass added to the prompt's time.
#include "memfit/speed.h"

namespace memfit {
namespace {

// `tokens` at `rate` a second, then `extra_s` more: the rate over both.
double with_extra(double tokens, double rate, double extra_s) {
  return tokens / (tokens / rate + extra_s);
}

}  // namespace

std::optional<FirstCallSeconds> first_call_seconds(std::string_view engine) {
  if (engine == "mlx-lm") return kMlxLmFirstCall;
  return std::nullopt;
}

SpeedRange first_call_prefill(const SpeedRange& warm, uint64_t prompt_tokens,
                              const FirstCallSeconds& cost) {
  if (prompt_tokens == 0 || !(warm.median > 0) || !(warm.low > 0) || !(warm.high > 0)) return warm;
  const double n = static_cast<double>(prompt_tokens);
  SpeedRange out = warm;
  out.modelled = warm.modelled > 0 ? with_extra(n, warm.modelled, cost.median) : warm.modelled;
  out.median = with_extra(n, warm.median, cost.median);
  // The band each way: the slowest warm rate with the largest cost is the
  // slowest first call.
  out.low = with_extra(n, warm.low, cost.high);
  out.high = with_extra(n, warm.high, cost.low);
  return out;
}

}  // namespace memfit
