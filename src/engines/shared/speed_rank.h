// Plans ranked by decode speed (docs/speed.md, "Plans chosen for speed"):
// what a solver lists when several plans fit, fastest first, and the
// cost of each step down ("-ngl 81 -> 28: fits, decode 38 -> 31 tok/s").
//
// The figure ranked is the band's median decode rate at the end of the
// context asked: the whole KV cache read with every token, the slowest the
// plan runs over that context. A part on a device of unknown bandwidth
// (the host CPU, which no request measures yet) is not guessed: a plan
// that reads fewer bytes a token there ranks first (the host is the slower
// memory wherever a GPU is), then the faster decode over the known parts.
#ifndef MEMFIT_ENGINES_SHARED_SPEED_RANK_H_
#define MEMFIT_ENGINES_SHARED_SPEED_RANK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/shared/speed_report.h"

namespace memfit {

struct DecodeRank {
  PlanSpeed speed;  // the whole plan's, as the report gives it
  // The parts of known bandwidth alone; the same as speed when every part
  // holding bytes is known; unknown set when none is.
  PlanSpeed known_speed;
  // Bytes a token reads at the end of the context on the devices whose
  // bandwidth is not known (active weights and KV cache), and those devices.
  uint64_t unknown_bytes = 0;
  std::vector<std::string> unknown_devices;

  // known_speed's median decode at the end of the context; nullopt when
  // no part is known, or the plan decodes nothing (an embedding model).
  std::optional<double> decode_tokens_per_second() const;
};

// The plan's rank with the bands fitted on the published runs, and with
// the bands given (tests).
DecodeRank rank_decode(const SpeedPlan& plan);
DecodeRank rank_decode(const SpeedPlan& plan, const EfficiencyTable& decode,
                       const EfficiencyTable& prefill);

// True when `a` ranks before `b`: fewer unknown bytes, then the faster
// known decode (a known figure before none). A strict weak order.
bool decodes_faster(const DecodeRank& a, const DecodeRank& b);

// "31 tok/s"; "at most 45 tok/s (cpu's 3.20 GiB a token at an unknown
// bandwidth not counted)" when a part is unknown (its time only adds);
// "unknown: give --gpu or --mac" when every part is; "none (why)" when
// the plan decodes nothing.
std::string decode_rank_text(const DecodeRank& rank);

// One step from plan `from` down to plan `to`: "decode 38 -> 31 tok/s"
// when both are known, else each side as decode_rank_text says it.
std::string decode_step_text(const DecodeRank& from, const DecodeRank& to);

// {"decode_tokens_per_second": 31.2 | null, "not_counted": {"devices":
// ["cpu"], "bytes_per_token": N}}: the figure ranked, and what it leaves out.
nlohmann::ordered_json decode_rank_json(const DecodeRank& rank);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_SPEED_RANK_H_
