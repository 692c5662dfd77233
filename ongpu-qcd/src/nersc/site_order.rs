//! The file's site order and ongpu's: a file lists sites lexicographically, x fastest, then
//! y, z, t (MILC's `r_serial_arch` decomposes its rank so, QDP++'s `readArchiv` walks
//! `crtesn`, Grid writes lexicographic arrays), while fields on a lattice hold even sites
//! first. `Lattice::index` maps one to the other.

use ongpu_runtime::Lattice;

/// The field index of each site of a file, in the file's order.
pub(crate) fn file_order(lat: Lattice) -> impl Iterator<Item = usize> {
    let [lx, ly, lz, lt] = lat.extents();
    (0..lt).flat_map(move |t| {
        (0..lz).flat_map(move |z| {
            (0..ly).flat_map(move |y| (0..lx).map(move |x| lat.index([x, y, z, t])))
        })
    })
}

/// The place of the lattice's site `i` in a file's order: its lexicographic rank, x fastest.
pub(crate) fn lexicographic_rank(lat: Lattice, i: usize) -> u64 {
    let [lx, ly, lz, _] = lat.extents();
    let [x, y, z, t] = lat.coords(i);
    (x + lx * (y + ly * (z + lz * t))) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_every_site_once_x_fastest() {
        let lat = Lattice::new([2, 4, 2, 6]).unwrap();
        let order: Vec<usize> = file_order(lat).collect();
        assert_eq!(order.len(), lat.volume());
        let mut seen = vec![false; lat.volume()];
        for (lex, &i) in order.iter().enumerate() {
            let [x, y, z, t] = lat.coords(i);
            assert_eq!(lex, x + 2 * (y + 4 * (z + 2 * t)));
            assert_eq!(lexicographic_rank(lat, i), lex as u64);
            assert!(!seen[i]);
            seen[i] = true;
        }
    }
}
