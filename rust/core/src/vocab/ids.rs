//! Facts about a vector of token ids: range, duplicates, order, and the offset-to-id conversion.

/// What one reading of `d2t` (offsets or absolute ids) looks like as a list of target ids.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IdFacts {
    /// Number of ids.
    pub len: usize,
    /// Ids below zero.
    pub negative: u64,
    /// Ids at or above the target vocabulary size (0 when it is unknown).
    pub too_large: u64,
    /// First out-of-range id as (slot, id).
    pub first_out_of_range: Option<(usize, i64)>,
    /// In-range ids that repeat an earlier in-range id (each extra occurrence counts once).
    pub duplicates: u64,
    /// First repeated id as (first slot, repeat slot, id).
    pub first_duplicate: Option<(usize, usize, i64)>,
    /// Every id is larger than the one before it.
    pub strictly_increasing: bool,
}

impl IdFacts {
    /// Measures `ids` against `[0, vt)` (only `>= 0` when `vt` is unknown).
    pub fn of(ids: &[i64], vt: Option<u64>) -> IdFacts {
        let in_range = |v: i64| v >= 0 && vt.is_none_or(|vt| (v as u64) < vt);
        let mut facts = IdFacts {
            len: ids.len(),
            negative: 0,
            too_large: 0,
            first_out_of_range: None,
            duplicates: 0,
            first_duplicate: None,
            strictly_increasing: ids.windows(2).all(|w| w[0] < w[1]),
        };
        let mut seen: Vec<(i64, usize)> = Vec::with_capacity(ids.len());
        for (slot, &v) in ids.iter().enumerate() {
            if in_range(v) {
                seen.push((v, slot));
                continue;
            }
            if v < 0 {
                facts.negative += 1;
            } else {
                facts.too_large += 1;
            }
            facts.first_out_of_range.get_or_insert((slot, v));
        }
        seen.sort_unstable();
        for pair in seen.windows(2) {
            if pair[0].0 == pair[1].0 {
                facts.duplicates += 1;
                let candidate = (pair[0].1, pair[1].1, pair[0].0);
                // Report the duplicate whose repeat comes first in slot order.
                if facts.first_duplicate.is_none_or(|d| candidate.1 < d.1) {
                    facts.first_duplicate = Some(candidate);
                }
            }
        }
        facts
    }

    /// Ids outside `[0, vt)`.
    pub fn out_of_range(&self) -> u64 {
        self.negative + self.too_large
    }

    /// Every id is in range and distinct: a usable selection of target ids.
    pub fn valid(&self) -> bool {
        self.out_of_range() == 0 && self.duplicates == 0
    }
}

/// `d2t + arange(len)`: the target ids every engine reads. Saturates on overflow, which only
/// happens for values that are far out of range anyway.
pub(crate) fn offsets_to_ids(d2t: &[i64]) -> Vec<i64> {
    d2t.iter()
        .enumerate()
        .map(|(i, &v)| v.saturating_add(i64::try_from(i).unwrap_or(i64::MAX)))
        .collect()
}

/// The ids sorted and deduplicated: the token set a vector selects.
pub(crate) fn id_set(ids: &[i64]) -> Vec<i64> {
    let mut set = ids.to_vec();
    set.sort_unstable();
    set.dedup();
    set
}

/// Counts of members only in `a` and only in `b`, with an example of each, for two sorted sets.
pub(crate) fn set_difference(a: &[i64], b: &[i64]) -> (u64, Option<i64>, u64, Option<i64>) {
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (0u64, 0u64);
    let (mut ex_a, mut ex_b) = (None, None);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) if x < y => {
                (only_a, i) = (only_a + 1, i + 1);
                ex_a.get_or_insert(*x);
            }
            (Some(x), None) => {
                (only_a, i) = (only_a + 1, i + 1);
                ex_a.get_or_insert(*x);
            }
            (_, Some(y)) => {
                (only_b, j) = (only_b + 1, j + 1);
                ex_b.get_or_insert(*y);
            }
            (None, None) => break,
        }
    }
    (only_a, ex_a, only_b, ex_b)
}

/// Base-10 logarithm of the probability that `n` ids drawn uniformly without replacement from
/// `[0, vt)` contain no two adjacent ids, `C(vt - n + 1, n) / C(vt, n)` (minus infinity when
/// impossible; a logarithm because the probability underflows f64 for real vocabularies). A sorted offsets `d2t` is strictly increasing
/// exactly when its target ids have no adjacent pair, so this bounds how often a real sorted
/// selection would look like sorted absolute ids (rule c of the decision procedure).
pub(crate) fn gap_free_log10_probability(n: usize, vt: u64) -> f64 {
    let n = n as u64;
    let Some(room) = vt.checked_sub(n).and_then(|r| r.checked_add(1)) else {
        return f64::NEG_INFINITY;
    };
    if room < n {
        return f64::NEG_INFINITY;
    }
    (0..n)
        .map(|i| ((room - i) as f64 / (vt - i) as f64).log10())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_count_range_and_duplicates() {
        let f = IdFacts::of(&[3, -1, 3, 9, 10, 3], Some(10));
        assert_eq!((f.negative, f.too_large), (1, 1));
        assert_eq!(f.first_out_of_range, Some((1, -1)));
        assert_eq!(f.duplicates, 2);
        assert_eq!(f.first_duplicate, Some((0, 2, 3)));
        assert!(!f.valid() && !f.strictly_increasing);
        let ok = IdFacts::of(&[0, 4, 7], None);
        assert!(ok.valid() && ok.strictly_increasing);
    }

    #[test]
    fn offsets_and_sets() {
        assert_eq!(offsets_to_ids(&[5, 5, -2]), vec![5, 6, 0]);
        assert_eq!(offsets_to_ids(&[0, i64::MAX]), vec![0, i64::MAX]);
        assert_eq!(
            set_difference(&[1, 2, 5], &[2, 3]),
            (2, Some(1), 1, Some(3))
        );
        assert_eq!(id_set(&[3, 1, 3]), vec![1, 3]);
    }

    /// Exhaustive count over all subsets of a small vocabulary matches the closed form.
    #[test]
    fn gap_free_probability_matches_enumeration() {
        let vt = 12u64;
        for n in 0..=7usize {
            let (mut total, mut gap_free) = (0u32, 0u32);
            for mask in 0u32..(1 << vt) {
                if mask.count_ones() as usize != n {
                    continue;
                }
                total += 1;
                gap_free += u32::from(mask & (mask >> 1) == 0);
            }
            let p = 10f64.powf(gap_free_log10_probability(n, vt));
            assert!(
                (p - f64::from(gap_free) / f64::from(total)).abs() < 1e-12,
                "n={n}"
            );
        }
        assert_eq!(gap_free_log10_probability(5, 3), f64::NEG_INFINITY);
        assert!(gap_free_log10_probability(32000, 128256) < -3000.0);
    }
}
