// SPDX-License-Identifier: MIT
// TR-PREFIX and TR-MAXIMAL read generically (profile "generic") for designs whose limit cannot be
// varied (issue 42): the cap is a constant of the server, no environment variable or argument
// changes it, so the limit sweep has nothing to drive. Prefix and maximality are still checkable
// by calling the tool again with its own count argument set to what the cut answer kept (k) and
// to one more (k+1). docs/ENVELOPE-CHECKS.md, "Generic truncation rules", is the contract.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/generic.h"
#include "checks/outcome.h"

namespace ctxo::checks {

/// A limit parameter (`is_limit`) that counts items: not a size or token budget (`tokenBudget`,
/// `maxBytes`, `maxChars`, `maxLength`, `maxOutput`, `maxResultSize`), whose value k says nothing
/// about how many items come back.
bool counts_items(const std::string& parameter, const std::function<bool(const std::string&)>& is_limit);

/// The calls to make for the calls of one tool whose answer was cut below what they asked for (a
/// constant cap): each answer that says there is more (ListedCall::says_more) with k >= 2 items,
/// from a call that gave no item-count limit or one larger than k (and no size or token budget),
/// again with the tool's own item-count limit parameter (the one the call gave, else the first
/// integer property of `input_schema` that counts_items) set to k and to k+1, each within the
/// property's minimum and maximum. Those already among `calls` (or already returned) are left
/// out; at most `max_cuts` cut answers (distinct by their other arguments and k) are followed.
std::vector<json> cap_calls(const std::vector<ListedCall>& calls, const json& input_schema,
                            const std::function<bool(const std::string&)>& is_limit, std::size_t max_cuts = 2);

/// TR-PREFIX and TR-MAXIMAL (generic) over the calls of one tool, each cut answer (as cap_calls
/// picks them) against the same call at limit k and at k+1 found among `calls`:
///  - TR-PREFIX: the call at k returned exactly k items (else the parameter does not count this
///    list's items: silent); unless the call at k+1 returned k+1 items whose first k are not the
///    k items at k (the tool's own order is not stable between calls: silent), the cut answer's
///    items must be those k items in order. Form "cut-not-a-prefix", on the cut call.
///  - TR-MAXIMAL: when the cut call asked for more than k items (a limit above k, or none and the
///    schema's declared default above k; with neither, the cut may be the tool's default page:
///    silent), the call at k+1 returning k+1 items whose first k are the cut answer's is a
///    finding (the server gives k+1 of the same list when asked for fewer than the cut call asked
///    for). Passed when it returned the same k items again and said there is more; anything else
///    (fewer items, other items, an ambiguous list) is silent. Form "constant-cap-not-largest".
/// One finding per form; the forms in `reported` are skipped and new ones added to it (nullptr:
/// none kept). Not observed (with why) when no cut answer from a constant cap was seen or none was
/// comparable. `input_schema` gives the limit's declared default (an empty object: none).
Outcomes check_caps(const std::vector<ListedCall>& calls, const json& input_schema,
                    const std::function<bool(const std::string&)>& is_limit, std::set<std::string>* reported = nullptr);

}  // namespace ctxo::checks
