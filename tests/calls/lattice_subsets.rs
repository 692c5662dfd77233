//! Lattices as the index space of calls (CPU backend): subsets run their own parity only,
//! fields must hold the lattice volume, element arrays load and store per entry.

use ongpu::prelude::*;

fn cpu<R>(f: impl FnOnce() -> R) -> R {
    ongpu::with_backend(ongpu::Backend::Cpu, f)
}

#[test]
fn a_parity_call_leaves_the_other_parity_untouched() {
    cpu(|| {
        let lat = Lattice::new([4, 4, 2, 6]).unwrap();
        let v = lat.volume();
        let mut x: Field<f64> = Field::filled(v, -1.0);
        on_gpu!(lat.even(), |i| {
            x = i as f64;
        })
        .unwrap();
        let host = x.to_vec().unwrap();
        for (i, &h) in host.iter().enumerate() {
            let want = if lat.parity(i) == 0 { i as f64 } else { -1.0 };
            assert_eq!(h, want, "site {i}");
        }
        let mut y: Field<u32, SoA> = Field::filled(v, 7);
        on_gpu!(lat.odd(), 64, |i| {
            y = i as u32;
        })
        .unwrap();
        let host = y.to_vec().unwrap();
        for (i, &h) in host.iter().enumerate() {
            let want = if lat.parity(i) == 1 { i as u32 } else { 7 };
            assert_eq!(h, want, "site {i}");
        }
    })
}

#[test]
fn reductions_over_subsets_sum_their_parity() {
    cpu(|| {
        let lat = Lattice::new([6, 2, 4, 2]).unwrap();
        let x: Field<f64> = Field::from_fn(lat.volume(), |i| i as f64);
        let even: f64 = on_gpu!(sum: lat.even(), { x }).unwrap();
        let odd: f64 = on_gpu!(sum: lat.odd(), { x }).unwrap();
        let all: f64 = on_gpu!(sum: lat, { x }).unwrap();
        let h = (lat.volume() / 2) as f64;
        assert_eq!(even, h * (h - 1.0) / 2.0);
        assert_eq!(all, (2.0 * h) * (2.0 * h - 1.0) / 2.0);
        assert_eq!(even + odd, all);
    })
}

#[test]
fn a_field_off_the_lattice_is_an_error_before_anything_runs() {
    cpu(|| {
        let lat = Lattice::new([4, 4, 4, 4]).unwrap();
        let mut x: Field<f32> = Field::filled(lat.volume(), 3.0);
        let y: Field<f32> = Field::zeros(lat.volume() + 1);
        let e = on_gpu!(lat.even(), {
            x = y;
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`y` has 257 elements") && e.contains("volume 256"),
            "{e}"
        );
        assert!(e.contains("even sites of the 4x4x4x4 lattice"), "{e}");
        assert!(x.to_vec().unwrap().iter().all(|&v| v == 3.0));
    })
}

#[test]
fn element_arrays_load_and_store_per_entry_in_every_layout() {
    fn run<L: ongpu::Layout>() {
        let n = 100;
        let mut u: Field<[ColorMatrix<f64>; 4], L> = Field::from_fn(n, |i| {
            std::array::from_fn(|mu| ColorMatrix::identity() * (i * 4 + mu) as f64)
        });
        let mut t: Field<f64> = Field::zeros(n);
        on_gpu!({
            let mut s = 0.0;
            for mu in 0..4 {
                s += u[mu].trace().re;
            }
            t = s;
            u[1] = u[2] * 2.0;
        })
        .unwrap();
        let (u, t) = (u.to_vec().unwrap(), t.to_vec().unwrap());
        for i in 0..n {
            let want: f64 = (0..4).map(|mu| 3.0 * (i * 4 + mu) as f64).sum();
            assert_eq!(t[i], want);
            assert_eq!(u[i][1], ColorMatrix::identity() * (2 * (i * 4 + 2)) as f64);
            assert_eq!(u[i][0], ColorMatrix::identity() * (i * 4) as f64);
            assert_eq!(u[i][3], ColorMatrix::identity() * (i * 4 + 3) as f64);
        }
    }
    cpu(|| {
        run::<AoS>();
        run::<SoA>();
        run::<AoSoA<32>>();
        run::<AoSoA<8>>();
    })
}

#[test]
fn subsets_that_start_inside_a_group_of_sites_run_every_site_once() {
    cpu(|| {
        // V/2 = 24: the odd sites start inside the first group of 32 and the first AoSoA block.
        for dims in [[2, 2, 2, 6], [6, 2, 2, 2], [2, 4, 6, 2]] {
            let lat = Lattice::new(dims).unwrap();
            let v = lat.volume();
            let y: Field<f64, SoA> = Field::from_fn(v, |i| i as f64);
            let mut x: Field<f64> = Field::filled(v, -1.0);
            let mut z: Field<ColorMatrix<f32>, AoSoA<8>> = Field::zeros(v);
            on_gpu!(lat.odd(), |i| {
                x = y * 2.0 + 1.0;
                z = ColorMatrix::identity() * (i as f32);
            })
            .unwrap();
            let (x, z) = (x.to_vec().unwrap(), z.to_vec().unwrap());
            for i in 0..v {
                let odd = lat.parity(i) == 1;
                assert_eq!(
                    x[i],
                    if odd { 2.0 * i as f64 + 1.0 } else { -1.0 },
                    "{dims:?} {i}"
                );
                let want = if odd { i as f32 } else { 0.0 };
                assert_eq!(z[i], ColorMatrix::identity() * want, "{dims:?} {i}");
            }
        }
    })
}
