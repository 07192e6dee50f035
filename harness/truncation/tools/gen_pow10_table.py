#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Generates the table of shortest.cpp: for each decimal exponent k in [-324, 292], the 126-bit
# integer g(k) = floor(10^-k * 2^-r) + 1 with r = floor(log2(10^-k)) - 125 (so 2^125 <= g < 2^126),
# printed as {g >> 63, g mod 2^63} (Schubfach's 63-bit halves). Also checks the multiply-shift logarithm formulas used
# there. Exact rational arithmetic; run: python3 gen_pow10_table.py > table.inc
import math
import sys
from fractions import Fraction


def floor_log2(x):  # floor(log2(x)) for a positive Fraction, exactly
    r = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** r > x:
        r -= 1
    while Fraction(2) ** (r + 1) <= x:
        r += 1
    return r


def floor_log10(x):  # floor(log10(x)) for a positive Fraction, exactly
    k = (x.numerator.bit_length() - x.denominator.bit_length()) * 30103 // 100000
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


for e in range(-400, 400):
    assert (e * 913124641741) >> 38 == floor_log2(Fraction(10) ** e), e
for q in range(-1200, 1200):
    assert (q * 661971961083) >> 41 == floor_log10(Fraction(2) ** q), q
    assert (q * 661971961083 - 274743187321) >> 41 == floor_log10(Fraction(3, 4) * Fraction(2) ** q), q

for k in range(-324, 293):
    r = floor_log2(Fraction(10) ** -k) - 125
    g = math.floor(Fraction(10) ** -k / Fraction(2) ** r) + 1
    assert 2 ** 125 <= g < 2 ** 126
    sys.stdout.write("    {0x%016x, 0x%016x},  // %d\n" % (g >> 63, g & (2 ** 63 - 1), k))
