//! Neighbours on the host from coordinates, for the host reference operators: written apart
//! from the lattice's own `shift` (and the device's), so that the references check it.

use ongpu_runtime::Lattice;

/// The coordinates `c + d · mû` on `lat` (periodic).
pub fn step(lat: &Lattice, c: [usize; 4], mu: usize, d: isize) -> [usize; 4] {
    let l = lat.extents()[mu] as isize;
    let mut n = c;
    n[mu] = (c[mu] as isize + d).rem_euclid(l) as usize;
    n
}

/// The index of the site one step forward (or backward) along `mu` from `c`.
pub fn neighbour(lat: &Lattice, c: [usize; 4], mu: usize, forward: bool) -> usize {
    lat.index(step(lat, c, mu, if forward { 1 } else { -1 }))
}
