//! Storage options: pageable (default), pinned, mapped and device-only fields give the same
//! results on every layout; conversions keep the data; a field computed only on the device
//! holds no host copy (measured as the process's resident memory on the GPU); page-locked
//! allocation failures are a clear `Error`.

use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Error, Layout, Residency, Storage};

const STORAGES: [Storage; 4] = [
    Storage::Pageable,
    Storage::Pinned,
    Storage::Mapped,
    Storage::DeviceOnly,
];

fn matrix(i: usize) -> ColorMatrix<f32> {
    let mut m = ColorMatrix::zero();
    for r in 0..3 {
        for c in 0..3 {
            m[r][c] = Complex::new((i * 9 + r * 3 + c) as f32 * 0.25, 1.0 - i as f32);
        }
    }
    m
}

/// x = y * z + x on fields of one storage; every site checked against the host product.
fn product_in<L: Layout>(storage: Storage, n: usize) {
    let y: Field<ColorMatrix<f32>, L> = Field::from_fn(n, matrix).with_storage(storage).unwrap();
    let z: Field<ColorMatrix<f32>, L> = Field::from_fn(n, |i| matrix(i + 7))
        .with_storage(storage)
        .unwrap();
    let mut x: Field<ColorMatrix<f32>, L> = Field::filled(n, ColorMatrix::identity())
        .with_storage(storage)
        .unwrap();
    assert_eq!(x.storage(), storage);
    on_gpu!({
        x = y * z + x;
    })
    .unwrap();
    let got = x.to_vec().unwrap();
    for (i, g) in got.iter().enumerate() {
        let want = matrix(i) * matrix(i + 7) + ColorMatrix::identity();
        for r in 0..3 {
            for c in 0..3 {
                let (a, b) = (g[r][c], want[r][c]);
                let tol = 1e-5 * (1.0 + b.norm());
                assert!(
                    (a - b).norm() <= tol,
                    "{storage:?} {}: site {i} [{r}][{c}]",
                    L::name()
                );
            }
        }
    }
    assert_eq!(x.get(n - 1).unwrap(), got[n - 1]);
}

#[test]
fn every_storage_computes_the_same_on_every_layout_cpu() {
    with_backend(Backend::Cpu, || {
        for s in STORAGES {
            product_in::<AoS>(s, 67);
            product_in::<SoA>(s, 67);
            product_in::<AoSoA<32>>(s, 67);
            product_in::<AoSoA<4>>(s, 5);
        }
    });
}

#[test]
fn conversions_between_storages_keep_the_data() {
    with_backend(Backend::Cpu, || {
        let n = 45;
        let mut x: Field<Complex<f64>, AoSoA<8>> =
            Field::from_fn(n, |i| Complex::new(i as f64, -(i as f64) / 3.0));
        for from in STORAGES {
            for to in STORAGES {
                x.set_storage(from).unwrap();
                x.set(3, Complex::new(-1.0, 2.0)).unwrap();
                x.set_storage(to).unwrap();
                assert_eq!(x.storage(), to);
                let v = x.to_vec().unwrap();
                for (i, z) in v.iter().enumerate() {
                    let want = if i == 3 {
                        Complex::new(-1.0, 2.0)
                    } else {
                        Complex::new(i as f64, -(i as f64) / 3.0)
                    };
                    assert_eq!(*z, want, "{from:?} -> {to:?}, site {i}");
                }
            }
        }
    });
}

#[test]
fn zeros_of_any_storage_allocate_nothing_until_used() {
    with_backend(Backend::Cpu, || {
        for s in STORAGES {
            let x: Field<f64> = Field::zeros(1 << 20).with_storage(s).unwrap();
            assert_eq!(x.residency(), Residency::Zeros, "{s:?}");
            assert!(!x.has_host_copy(), "{s:?}");
            assert!(x.to_vec().unwrap().iter().all(|&v| v == 0.0), "{s:?}");
        }
    });
}

#[test]
fn without_a_device_page_locked_storage_is_ordinary_memory() {
    with_backend(Backend::Cpu, || {
        let mut x: Field<u32, AoS> = Field::filled(10, 3).pinned().unwrap();
        let mut y: Field<u32, AoS> = Field::filled(10, 4).mapped().unwrap();
        on_gpu!({
            x += y;
        })
        .unwrap();
        y.set(0, 9).unwrap();
        assert_eq!(x.to_vec().unwrap(), vec![7; 10]);
        assert_eq!(y.get(0).unwrap(), 9);
        if !ongpu::cuda_available() {
            assert!(!x.is_page_locked() && !y.is_page_locked());
            assert_eq!(y.residency(), Residency::Host);
        }
    });
}

#[test]
fn a_device_only_field_on_the_cpu_backend_keeps_its_data_on_the_host() {
    with_backend(Backend::Cpu, || {
        let mut x: Field<i32, SoA> = Field::from_fn(100, |i| i as i32 - 50)
            .device_only()
            .unwrap();
        assert_eq!(x.storage(), Storage::DeviceOnly);
        on_gpu!({
            x *= 3;
        })
        .unwrap();
        {
            let mut h = x.as_host_mut().unwrap();
            h.set(0, 1000);
        }
        x.set(1, -7).unwrap();
        let v = x.to_vec().unwrap();
        assert_eq!(&v[..3], &[1000, -7, (2 - 50) * 3]);
        for (i, &e) in v.iter().enumerate().skip(2) {
            assert_eq!(e, (i as i32 - 50) * 3, "site {i}");
        }
        assert_eq!(x.transfers(), ongpu::Transfers::default());
    });
}

#[test]
fn fields_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Field<ColorMatrix<f64>>>();
    check::<Field<f32, AoS>>();
    check::<ongpu::Stream>();
    check::<ongpu::Event>();
}

#[test]
fn the_page_locked_allocation_error_says_what_to_do() {
    let e = Error::HostAllocation {
        what: "a field of 10 sites".into(),
        kind: "page-locked",
        requested: 1 << 40,
        reason: "CUDA_ERROR_OUT_OF_MEMORY: out of memory".into(),
    };
    let t = e.to_string();
    assert!(
        t.contains("1099511627776 bytes of page-locked host memory"),
        "{t}"
    );
    assert!(t.contains("pageable storage"), "{t}");
}

/// The kernels that only the GPU tests below run compile with NVRTC (no GPU needed).
#[cfg(feature = "cuda")]
#[test]
fn the_gpu_tests_kernels_compile() {
    if !crate::support::require_nvrtc() {
        return;
    }
    let ((), sources) = ongpu::inspect::collect_kernel_sources(|| {
        with_backend(Backend::Cpu, || {
            let mut v: Field<ColorVector<f64>, SoA> = Field::zeros(8);
            on_gpu!({
                v *= 2.0;
            })
            .unwrap();
            let mut w: Field<f32, AoS> = Field::zeros(8);
            on_gpu!(|i| {
                w = (i % 1000) as f32;
            })
            .unwrap();
            on_gpu!({
                w *= 2.0;
            })
            .unwrap();
            let a: Field<f32> = Field::zeros(8);
            let mut b: Field<f32> = Field::zeros(8);
            on_gpu!({
                b = a * 0.5;
            })
            .unwrap();
            on_gpu!({
                b = a + 1.0;
            })
            .unwrap();
            on_gpu!({
                b = 1.0;
            })
            .unwrap();
        })
    });
    assert_eq!(sources.len(), 6);
    for s in &sources {
        ongpu::inspect::compile(s, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;

    /// GPU tests of this file run one at a time: two of them measure the process's resident
    /// memory, which the others' host copies would disturb.
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn cuda<R>(f: impl FnOnce() -> R) -> R {
        let _alone = ALONE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        with_backend(Backend::Cuda, f)
    }

    /// Resident memory of this process, in bytes (Linux).
    fn rss() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        let kb: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    const GIB: usize = 1 << 30;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn every_storage_computes_the_same_on_every_layout_gpu() {
        cuda(|| {
            for s in STORAGES {
                product_in::<AoS>(s, 10_001);
                product_in::<SoA>(s, 10_001);
                product_in::<AoSoA<32>>(s, 10_001);
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn page_locked_fields_are_page_locked_and_mapped_ones_never_copy() {
        cuda(|| {
            let n = 1 << 20;
            let a: Field<f32> = Field::from_fn(n, |i| i as f32).pinned().unwrap();
            let mut b: Field<f32> = Field::zeros(n).mapped().unwrap();
            on_gpu!({
                b = a * 0.5;
            })
            .unwrap();
            assert!(a.is_page_locked() && b.is_page_locked());
            assert_eq!(a.transfers().uploads, 1);
            assert_eq!(b.transfers(), ongpu::Transfers::default());
            assert_eq!(b.residency(), Residency::Both);
            for (i, v) in b.to_vec().unwrap().iter().enumerate() {
                assert_eq!(*v, i as f32 * 0.5, "site {i}");
            }
            // A mapped field written on the host is read by the next kernel as written.
            b.set(5, -1.0).unwrap();
            let mut c: Field<f32> = Field::zeros(n);
            on_gpu!({
                c = b + 1.0;
            })
            .unwrap();
            for (i, &v) in c.to_vec().unwrap().iter().enumerate() {
                let b = if i == 5 { -1.0 } else { i as f32 * 0.5 };
                assert_eq!(v, b + 1.0, "site {i}");
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_device_only_field_keeps_no_host_copy() {
        cuda(|| {
            let n = 100_003;
            let mut x: Field<ColorVector<f64>, SoA> =
                Field::from_fn(n, |i| ColorVector::new([Complex::new(i as f64, 1.0); 3]))
                    .device_only()
                    .unwrap();
            assert!(!x.has_host_copy());
            assert_eq!(x.residency(), Residency::Device);
            assert_eq!(x.transfers().uploads, 1);
            on_gpu!({
                x *= 2.0;
            })
            .unwrap();
            // One site read and written through the device, by its 6 values alone.
            let before = x.transfers();
            assert_eq!(x.get(7).unwrap()[2], Complex::new(14.0, 2.0));
            x.set(8, ColorVector::new([Complex::new(-1.0, -2.0); 3]))
                .unwrap();
            assert!(!x.has_host_copy());
            let after = x.transfers();
            assert_eq!(after.bytes_down - before.bytes_down, 48);
            assert_eq!(after.bytes_up - before.bytes_up, 48);
            // Host writes through a guard: uploaded and freed when it is dropped.
            {
                let mut h = x.as_host_mut().unwrap();
                h.set(9, ColorVector::new([Complex::new(5.0, 5.0); 3]));
            }
            assert!(!x.has_host_copy());
            assert_eq!(x.residency(), Residency::Device);
            let v = x.to_vec().unwrap(); // through a temporary
            assert!(!x.has_host_copy());
            for (i, e) in v.iter().enumerate() {
                let want = match i {
                    8 => Complex::new(-1.0, -2.0),
                    9 => Complex::new(5.0, 5.0),
                    _ => Complex::new(2.0 * i as f64, 2.0),
                };
                assert_eq!(e[0], want, "site {i}");
            }
            // Downloading it on a stream is refused: it has no host copy to download into.
            let e = x.download_async(&ongpu::Stream::new()).unwrap_err();
            assert!(e.to_string().contains("device-only"), "{e}");
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn a_field_computed_on_the_device_holds_no_host_copy() {
        cuda(|| {
            // Warm up: the device, the kernels, the driver's own allocations.
            let mut w: Field<f32, AoS> = Field::zeros(1024);
            on_gpu!(|i| {
                w = (i % 1000) as f32;
            })
            .unwrap();
            on_gpu!({
                w *= 2.0;
            })
            .unwrap();
            ongpu::synchronize().unwrap();

            let n = 2 * GIB / 4; // 2 GiB of f32, default (pageable) storage
            let base = rss();
            let mut x: Field<f32, AoS> = Field::zeros(n);
            on_gpu!(|i| {
                x = (i % 1000) as f32;
            })
            .unwrap();
            on_gpu!({
                x *= 2.0;
            })
            .unwrap();
            ongpu::synchronize().unwrap();
            let grown = rss().saturating_sub(base);
            println!(
                "pageable zeros field of 2 GiB computed on the device: RSS +{} MiB",
                grown >> 20
            );
            assert!(!x.has_host_copy());
            assert!(grown < GIB / 4, "RSS grew by {grown} bytes");
            assert_eq!(x.get(n - 1).unwrap(), ((n - 1) % 1000) as f32 * 2.0);
        });
    }

    #[test]
    #[ignore = "needs a CUDA device (and 17 GiB of device memory)"]
    fn a_16_gib_device_only_field_uses_under_1_gib_of_host_memory() {
        cuda(|| {
            let mut w: Field<f32, AoS> = Field::zeros(1024).device_only().unwrap();
            on_gpu!(|i| {
                w = (i % 1000) as f32;
            })
            .unwrap();
            on_gpu!({
                w *= 2.0;
            })
            .unwrap();
            w.set(3, 1.0).unwrap();
            assert_eq!(w.get(3).unwrap(), 1.0);
            ongpu::synchronize().unwrap();

            let n = 16 * GIB / 4;
            let base = rss();
            let mut x: Field<f32, AoS> = Field::zeros(n).device_only().unwrap();
            on_gpu!(|i| {
                x = (i % 1000) as f32;
            })
            .unwrap();
            on_gpu!({
                x *= 2.0;
            })
            .unwrap();
            x.set(n / 2, -3.0).unwrap();
            assert_eq!(x.get(n / 2).unwrap(), -3.0);
            assert_eq!(x.get(n - 1).unwrap(), ((n - 1) % 1000) as f32 * 2.0);
            ongpu::synchronize().unwrap();
            let grown = rss().saturating_sub(base);
            println!(
                "device-only field of 16 GiB: host RSS {} MiB, +{} MiB",
                rss() >> 20,
                grown >> 20
            );
            assert!(!x.has_host_copy());
            assert!(grown < GIB, "RSS grew by {grown} bytes");
            // Every element, read straight into the result (no second host copy).
            let v = x.to_vec().unwrap();
            for (i, e) in v.iter().enumerate() {
                let want = if i == n / 2 {
                    -3.0
                } else {
                    (i % 1000) as f32 * 2.0
                };
                assert_eq!(*e, want, "site {i}");
            }
        });
    }

    #[test]
    #[ignore = "needs a CUDA device"]
    fn refused_memory_is_a_clear_error() {
        cuda(|| {
            // 64 TiB of page-locked memory: the driver refuses it.
            let x: Field<f32> = Field::zeros(1 << 44).pinned().unwrap();
            match x.get(0) {
                Err(Error::HostAllocation {
                    kind, requested, ..
                }) => {
                    assert_eq!(kind, "page-locked");
                    assert_eq!(requested, 1 << 46);
                }
                other => panic!("expected a host allocation error, got {other:?}"),
            }
            assert_eq!(x.residency(), Residency::Zeros, "nothing changed");
            // 64 TiB on the device: out of device memory, nothing written.
            let mut y: Field<f32> = Field::zeros(1 << 44).device_only().unwrap();
            let e = on_gpu!({
                y = 1.0;
            })
            .unwrap_err();
            assert!(matches!(e, Error::OutOfDeviceMemory { .. }), "{e}");
        });
    }
}
