// SPDX-License-Identifier: MIT
// Small RapidCheck building blocks shared by the schema and pattern generators: choices that do
// not depend on RapidCheck's size parameter (so small sizes still reach every branch) and
// vectors whose optional tail RapidCheck can shrink by removing elements anywhere.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/shrink/Shrink.h>

namespace ctxo::gen {

/// Uniform in [lo, hi] whatever the size; shrinks towards `target` (which must lie in range).
template <typename T>
rc::Gen<T> any_in(T lo, T hi, T target) {
  return rc::gen::shrink(rc::gen::noShrink(rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi + 1))),
                         [target](T x) { return rc::shrink::towards<T>(x, target); });
}

/// One of `options` picked by weight (zero weights never); shrinks towards the first option.
template <typename T>
rc::Gen<T> weighted_pick(std::vector<std::pair<std::size_t, rc::Gen<T>>> options) {
  options.erase(std::remove_if(options.begin(), options.end(), [](const auto& o) { return o.first == 0; }),
                options.end());
  if (options.size() == 1) return options[0].second;
  std::size_t total = 0;
  for (const auto& o : options) total += o.first;
  if (total == 0) {
    return rc::Gen<T>([](const rc::Random&, int) -> rc::Shrinkable<T> { throw rc::GenerationFailure("no option"); });
  }
  return rc::gen::mapcat(any_in<std::size_t>(0, total - 1, 0), [options](std::size_t x) {
    for (const auto& o : options) {
      if (x < o.first) return o.second;
      x -= o.first;
    }
    return options.back().second;
  });
}

/// `lo` elements, then up to `extra` more (scaled by the size, at full size 100); the optional
/// tail shrinks by removing elements anywhere in it. Elements see the caller's size.
template <typename T>
rc::Gen<std::vector<T>> bounded_vector(std::size_t lo, std::size_t extra, rc::Gen<T> elem) {
  return rc::gen::withSize([=](int size) {
    std::size_t s = static_cast<std::size_t>(std::clamp(size, 0, rc::kNominalSize));
    std::size_t cap = (extra * s + rc::kNominalSize - 1) / rc::kNominalSize;
    rc::Gen<T> inner = rc::gen::resize(size, elem);
    auto fixed = rc::gen::container<std::vector<T>>(lo, inner);
    auto more = rc::gen::resize(static_cast<int>(cap), rc::gen::container<std::vector<T>>(inner));
    return rc::gen::map(rc::gen::tuple(fixed, more), [](const std::tuple<std::vector<T>, std::vector<T>>& t) {
      std::vector<T> v = std::get<0>(t);
      v.insert(v.end(), std::get<1>(t).begin(), std::get<1>(t).end());
      return v;
    });
  });
}

}  // namespace ctxo::gen
