// SPDX-License-Identifier: MIT
// Small RapidCheck building blocks shared by the schema and pattern generators: choices that do
// not depend on RapidCheck's size parameter (so small sizes still reach every branch) and
// vectors whose optional tail RapidCheck can shrink by removing elements anywhere.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Transform.h>

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

/// A Shrinkable whose value is computed once, when it is made: RapidCheck's own shrinkables
/// recompute theirs on every value() (a mapcat even draws its inner value again), which the
/// generators' hot path cannot afford. The shrinks are `source`'s, so the tree is unchanged.
template <typename T>
class CachedShrinkable {
 public:
  CachedShrinkable(T value, rc::Shrinkable<T> source) : value_(std::move(value)), source_(std::move(source)) {}
  T value() const { return value_; }
  rc::Seq<rc::Shrinkable<T>> shrinks() const { return source_.shrinks(); }

 private:
  T value_;
  rc::Shrinkable<T> source_;
};

template <typename T>
rc::Shrinkable<T> cached(T value, rc::Shrinkable<T> source) {
  return rc::makeShrinkable<CachedShrinkable<T>>(std::move(value), std::move(source));
}

/// A Shrinkable whose value is known and whose shrink tree is `gen`'s at (random, size), built
/// only when shrinks() is asked for: `value` must be what gen(random, size).value() gives.
template <typename T>
class LazyTreeShrinkable {
 public:
  LazyTreeShrinkable(T value, rc::Gen<T> gen, const rc::Random& random, int size)
      : value_(std::move(value)), gen_(std::move(gen)), random_(random), size_(size) {}
  T value() const { return value_; }
  rc::Seq<rc::Shrinkable<T>> shrinks() const { return gen_(random_, size_).shrinks(); }

 private:
  T value_;
  rc::Gen<T> gen_;
  rc::Random random_;
  int size_;
};

template <typename T>
rc::Shrinkable<T> lazy_tree(T value, rc::Gen<T> gen, const rc::Random& random, int size) {
  return rc::makeShrinkable<LazyTreeShrinkable<T>>(std::move(value), std::move(gen), random, size);
}

/// rc::gen::suchThat with the same draws, values and shrinks (up to 100 tries, each on the next
/// split of the Random at one size more), but the accepted value is computed once and kept.
template <typename T, typename Pred>
rc::Gen<T> such_that(rc::Gen<T> gen, Pred pred) {
  // The predicate is shared: the shrink tree keeps it, and a copy per value drawn would cost.
  return rc::Gen<T>([gen = std::move(gen), pred = std::make_shared<const Pred>(std::move(pred))](const rc::Random& random,
                                                                                               int size) {
    rc::Random r(random);
    int current = size;
    for (int tries = 0; tries < 100; ++tries) {
      rc::Shrinkable<T> s = gen(r.split(), current);
      T value = s.value();
      if ((*pred)(value)) {
        auto filtered = rc::shrinkable::mapShrinks(std::move(s), [pred](rc::Seq<rc::Shrinkable<T>>&& shrinks) {
          return rc::seq::mapMaybe(std::move(shrinks),
                                   [pred](rc::Shrinkable<T>&& x) { return rc::shrinkable::filter(std::move(x), *pred); });
        });
        return cached(std::move(value), std::move(filtered));
      }
      ++current;
    }
    throw rc::GenerationFailure("Gave up trying to generate value satisfying predicate.");
  });
}

}  // namespace ctxo::gen
