//! Whole numbers that may depend on one dynamic dimension: `c + k·s`, where `s` is a
//! symbol standing for a dimension a Parameter leaves dynamic. Dimensions and the values of
//! shape tensors (what `ShapeOf` returns, what `Reshape` and `Broadcast` read) are these,
//! so shape subgraphs fold even when the batch or the number of steps is not known.
//! Arithmetic is checked: an overflow gives `None`, which callers report.
use std::fmt;

/// `c + k·s`: a constant when `k` is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sym {
    /// The constant term.
    pub c: i64,
    /// The symbol's coefficient (0 for a constant).
    pub k: i64,
    /// The symbol (meaningless when `k` is 0, and then 0).
    pub s: u32,
}

impl Sym {
    /// A constant.
    pub const fn known(c: i64) -> Sym {
        Sym { c, k: 0, s: 0 }
    }

    /// Symbol `s` itself.
    pub const fn symbol(s: u32) -> Sym {
        Sym { c: 0, k: 1, s }
    }

    /// The value, when it does not depend on a symbol.
    pub fn value(self) -> Option<i64> {
        (self.k == 0).then_some(self.c)
    }

    /// The value as a size, when it is a known non-negative number.
    pub fn size(self) -> Option<u64> {
        self.value().and_then(|v| u64::try_from(v).ok())
    }

    /// Whether it is a known constant.
    pub fn is_known(self) -> bool {
        self.k == 0
    }

    fn with(c: i64, k: i64, s: u32) -> Sym {
        if k == 0 { Sym::known(c) } else { Sym { c, k, s } }
    }

    /// The symbol both sides share, when they can be combined (at most one symbol).
    fn common(a: Sym, b: Sym) -> Option<u32> {
        match (a.k, b.k) {
            (0, _) => Some(b.s),
            (_, 0) => Some(a.s),
            _ if a.s == b.s => Some(a.s),
            _ => None,
        }
    }

    /// `a + b`, when it is expressible.
    pub fn checked_add(self, b: Sym) -> Option<Sym> {
        let s = Sym::common(self, b)?;
        Some(Sym::with(self.c.checked_add(b.c)?, self.k.checked_add(b.k)?, s))
    }

    /// `a − b`, when it is expressible.
    pub fn checked_sub(self, b: Sym) -> Option<Sym> {
        self.checked_add(b.checked_neg()?)
    }

    /// `−a`.
    pub fn checked_neg(self) -> Option<Sym> {
        Some(Sym::with(self.c.checked_neg()?, self.k.checked_neg()?, self.s))
    }

    /// `a · b`, when one side is known.
    pub fn checked_mul(self, b: Sym) -> Option<Sym> {
        match (self.value(), b.value()) {
            (Some(x), _) => Some(Sym::with(b.c.checked_mul(x)?, b.k.checked_mul(x)?, b.s)),
            (_, Some(y)) => Some(Sym::with(self.c.checked_mul(y)?, self.k.checked_mul(y)?, self.s)),
            _ => None,
        }
    }

    /// `a / b` rounded towards −∞ (numpy's `//` on integers), when `b` is known and either
    /// `a` is known or the division is exact term by term.
    pub fn floor_div(self, b: Sym) -> Option<Sym> {
        let d = b.value().filter(|&d| d != 0)?;
        match self.value() {
            Some(x) => {
                let q = x.checked_div(d)?;
                let floor = if x % d != 0 && ((x < 0) != (d < 0)) { q - 1 } else { q };
                Some(Sym::known(floor))
            }
            None if self.c.checked_rem(d)? == 0 && self.k.checked_rem(d)? == 0 => {
                Some(Sym::with(self.c / d, self.k / d, self.s))
            }
            None => None,
        }
    }

    /// `a / b` when it is exact whatever the symbol's value: by a known `b` (see
    /// [`Sym::floor_div`]), or `k₁·s / k₂·s = k₁ / k₂` (a Reshape's `-1` beside a dynamic
    /// batch it keeps).
    pub fn exact_div(self, b: Sym) -> Option<Sym> {
        if b.is_known() {
            return self.floor_div(b).filter(|q| q.checked_mul(b) == Some(self));
        }
        if self.c != 0 || b.c != 0 || self.s != b.s || self.is_known() || b.k == 0 || self.k % b.k != 0 {
            return None;
        }
        Some(Sym::known(self.k / b.k))
    }

    /// `a / b` truncated towards zero (C's and OpenVINO's integer `Divide` without
    /// `m_pythondiv`), when `b` is known and the result is known or exact.
    pub fn trunc_div(self, b: Sym) -> Option<Sym> {
        let d = b.value().filter(|&d| d != 0)?;
        match self.value() {
            Some(x) => Some(Sym::known(x.checked_div(d)?)),
            None if self.c.checked_rem(d)? == 0 && self.k.checked_rem(d)? == 0 => {
                Some(Sym::with(self.c / d, self.k / d, self.s))
            }
            None => None,
        }
    }

    /// Whether `a == b`: `None` when it depends on the symbol's value. Symbols are
    /// dimensions, so at least 1: `c + k·s` with `c ≥ 0, k > 0` is never 0.
    pub fn equals(self, b: Sym) -> Option<bool> {
        let d = self.checked_sub(b)?;
        match d.value() {
            Some(v) => Some(v == 0),
            None if (d.c >= 0 && d.k > 0) || (d.c <= 0 && d.k < 0) => Some(false),
            None => None,
        }
    }

    /// Whether `a < b`, when that does not depend on the symbol's value (symbols ≥ 1).
    pub fn less(self, b: Sym) -> Option<bool> {
        let d = b.checked_sub(self)?;
        match d.value() {
            Some(v) => Some(v > 0),
            // c + k·s for s ≥ 1 is at least c + k when k > 0.
            None if d.k > 0 && d.c.checked_add(d.k)? > 0 => Some(true),
            None if d.k < 0 && d.c.checked_add(d.k)? <= 0 => Some(false),
            None => None,
        }
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.c, self.k) {
            (c, 0) => write!(f, "{c}"),
            (0, 1) => write!(f, "?{}", self.s),
            (0, k) => write!(f, "{k}·?{}", self.s),
            (c, 1) => write!(f, "?{}{c:+}", self.s),
            (c, k) => write!(f, "{k}·?{}{c:+}", self.s),
        }
    }
}

/// A shape as written in messages: `[2, ?0, 16]`.
pub fn show_syms(shape: &[Sym]) -> String {
    let parts: Vec<String> = shape.iter().map(Sym::to_string).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_keeps_one_symbol() {
        let n = Sym::symbol(0);
        let two_n = n.checked_mul(Sym::known(2)).expect("expressible");
        assert_eq!(two_n, Sym { c: 0, k: 2, s: 0 });
        assert_eq!(two_n.floor_div(Sym::known(2)), Some(n));
        assert_eq!(two_n.floor_div(Sym::known(4)), None);
        assert_eq!(n.checked_mul(Sym::symbol(0)), None);
        assert_eq!(n.checked_add(Sym::symbol(1)), None);
        assert_eq!(n.checked_sub(n), Some(Sym::known(0)));
        assert_eq!(Sym::known(7).floor_div(Sym::known(-2)), Some(Sym::known(-4)));
        assert_eq!(Sym::known(-7).trunc_div(Sym::known(2)), Some(Sym::known(-3)));
        assert_eq!(Sym::known(i64::MAX).checked_add(Sym::known(1)), None);
        // A Reshape's -1 beside the batch it keeps: 192·n / 6·n = 32.
        let (total, kept) = (Sym::with(0, 192, 0), Sym::with(0, 6, 0));
        assert_eq!(total.exact_div(kept), Some(Sym::known(32)));
        assert_eq!(total.exact_div(Sym::with(0, 7, 0)), None);
        assert_eq!(total.exact_div(Sym::with(0, 6, 1)), None, "another symbol");
        assert_eq!(Sym::with(1, 192, 0).exact_div(kept), None, "not a multiple of n");
        assert_eq!(total.exact_div(Sym::known(64)), Some(Sym::with(0, 3, 0)));
        assert_eq!(Sym::known(7).exact_div(Sym::known(2)), None);
    }

    #[test]
    fn comparisons_use_that_dimensions_are_positive() {
        let n = Sym::symbol(3);
        assert_eq!(n.equals(Sym::known(0)), Some(false));
        assert_eq!(n.equals(Sym::known(-1)), Some(false));
        assert_eq!(n.equals(Sym::known(1)), None);
        assert_eq!(n.equals(n), Some(true));
        assert_eq!(Sym::known(0).less(n), Some(true));
        assert_eq!(Sym::known(1).less(n), None);
        assert_eq!(n.to_string(), "?3");
        assert_eq!(n.checked_add(Sym::known(-1)).expect("expressible").to_string(), "?3-1");
    }
}
