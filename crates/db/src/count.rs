//! The integer types a [`crate::PerfectHash`] counts and ranks with.
//!
//! Real state sets fit in 64 bits (Connect Four 7×6 has 4.5e12 positions), and a database can
//! only hold as many values as a file can: `u64` is the fast path, with no allocation. `u128`
//! and [`BigUint`] exist for sets over more than 64 variables whose count does not fit;
//! `BigUint` allocates on every operation, so it is only used when nothing smaller fits.

use std::fmt;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
    impl Sealed for num_bigint::BigUint {}
}

/// An unsigned integer type for sat-counts and ranks: `u64`, `u128` or [`BigUint`].
///
/// Construction of a [`crate::PerfectHash`] checks that every sat-count and the set's size
/// fit; after that, every intermediate value of `rank` and `unrank` is at most the set's size,
/// so the unchecked operations below cannot overflow.
pub trait Count:
    Clone + Ord + fmt::Debug + fmt::Display + Send + Sync + 'static + sealed::Sealed
{
    /// Zero.
    fn zero() -> Self;
    /// One.
    fn one() -> Self;
    /// `self * 2^bits`, or `None` if it does not fit.
    fn checked_shl(&self, bits: u32) -> Option<Self>;
    /// `self + other`, or `None` if it does not fit.
    fn checked_add(&self, other: &Self) -> Option<Self>;
    /// `self = 2 * self + bit` (in range by the construction check).
    fn push_bit(&mut self, bit: bool);
    /// `self += a * b` (in range by the construction check).
    fn add_mul(&mut self, a: &Self, b: &Self);
    /// `self += a`.
    fn add(&mut self, a: &Self);
    /// `self -= a` (`a <= self`).
    fn sub(&mut self, a: &Self);
    /// `(self / d, self % d)` for `d > 0`.
    fn div_rem(&self, d: &Self) -> (Self, Self);
    /// Bit `i` (0 = least significant).
    fn bit(&self, i: u32) -> bool;
    /// The value as a big integer.
    fn to_biguint(&self) -> BigUint;
    /// The big integer as this type, or `None` if it does not fit.
    fn from_biguint(v: &BigUint) -> Option<Self>;
    /// The value as `u64`, or `None` if it does not fit.
    fn to_u64(&self) -> Option<u64>;
}

macro_rules! fixed_count {
    ($t:ty, $bits:expr) => {
        impl Count for $t {
            #[inline]
            fn zero() -> Self {
                0
            }
            #[inline]
            fn one() -> Self {
                1
            }
            #[inline]
            fn checked_shl(&self, bits: u32) -> Option<Self> {
                if *self == 0 {
                    return Some(0);
                }
                if bits >= $bits || self.leading_zeros() < bits {
                    return None;
                }
                Some(*self << bits)
            }
            #[inline]
            fn checked_add(&self, other: &Self) -> Option<Self> {
                <$t>::checked_add(*self, *other)
            }
            #[inline]
            fn push_bit(&mut self, bit: bool) {
                *self = (*self << 1) | Self::from(bit);
            }
            #[inline]
            fn add_mul(&mut self, a: &Self, b: &Self) {
                *self += *a * *b;
            }
            #[inline]
            fn add(&mut self, a: &Self) {
                *self += *a;
            }
            #[inline]
            fn sub(&mut self, a: &Self) {
                *self -= *a;
            }
            #[inline]
            fn div_rem(&self, d: &Self) -> (Self, Self) {
                (*self / *d, *self % *d)
            }
            #[inline]
            fn bit(&self, i: u32) -> bool {
                i < $bits && (*self >> i) & 1 == 1
            }
            fn to_biguint(&self) -> BigUint {
                BigUint::from(*self)
            }
            fn from_biguint(v: &BigUint) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline]
            fn to_u64(&self) -> Option<u64> {
                u64::try_from(*self).ok()
            }
        }
    };
}

fixed_count!(u64, 64);
fixed_count!(u128, 128);

impl Count for BigUint {
    fn zero() -> Self {
        <BigUint as Zero>::zero()
    }
    fn one() -> Self {
        BigUint::from(1u8)
    }
    fn checked_shl(&self, bits: u32) -> Option<Self> {
        Some(self << bits as usize)
    }
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Some(self + other)
    }
    fn push_bit(&mut self, bit: bool) {
        *self <<= 1usize;
        if bit {
            *self += 1u8;
        }
    }
    fn add_mul(&mut self, a: &Self, b: &Self) {
        *self += a * b;
    }
    fn add(&mut self, a: &Self) {
        *self += a;
    }
    fn sub(&mut self, a: &Self) {
        *self -= a;
    }
    fn div_rem(&self, d: &Self) -> (Self, Self) {
        (self / d, self % d)
    }
    fn bit(&self, i: u32) -> bool {
        BigUint::bit(self, u64::from(i))
    }
    fn to_biguint(&self) -> BigUint {
        self.clone()
    }
    fn from_biguint(v: &BigUint) -> Option<Self> {
        Some(v.clone())
    }
    fn to_u64(&self) -> Option<u64> {
        ToPrimitive::to_u64(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_detect_overflow() {
        assert_eq!(Count::checked_shl(&1u64, 63), Some(1u64 << 63));
        assert_eq!(Count::checked_shl(&1u64, 64), None);
        assert_eq!(Count::checked_shl(&3u64, 63), None);
        assert_eq!(Count::checked_shl(&0u64, 200), Some(0));
        assert_eq!(Count::checked_shl(&1u128, 127), Some(1u128 << 127));
        assert_eq!(Count::checked_shl(&2u128, 127), None);
        let big = Count::checked_shl(&BigUint::from(1u8), 200).unwrap();
        assert_eq!(big.bits(), 201);
        assert_eq!(u64::from_biguint(&big), None);
    }

    #[test]
    fn bits_and_pushes_agree() {
        let mut a = 0u64;
        let mut b = <BigUint as Count>::zero();
        for bit in [true, false, true, true] {
            a.push_bit(bit);
            b.push_bit(bit);
        }
        assert_eq!(a, 0b1011);
        assert_eq!(b, BigUint::from(0b1011u8));
        for i in 0..6 {
            assert_eq!(Count::bit(&a, i), Count::bit(&b, i));
        }
        assert!(!Count::bit(&a, 64));
    }
}
