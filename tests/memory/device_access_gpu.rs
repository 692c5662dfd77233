//! `Field::device_ptr`/`device_ptr_mut`: a hand-written kernel works on the same fields as
//! `on_gpu!`, with the copies kept coherent.

#![cfg(feature = "cuda")]

use ongpu::cuda::{self, nvrtc, ParamList, Shape};
use ongpu::prelude::*;
use ongpu::{with_backend, Backend, Residency};

/// x = 2 x + y, one thread per site.
const SCALE_ADD: &str = r#"
extern "C" __global__ void scale_add(float* __restrict__ x, const float* __restrict__ y,
                                     unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2.0f * x[i] + y[i];
}
"#;

#[test]
fn addresses_need_a_device_and_say_so() {
    let mut x: Field<f32> = Field::from_fn(10, |i| i as f32);
    if ongpu::cuda_available() {
        assert_ne!(x.device_ptr().unwrap(), 0);
        assert_eq!(x.residency(), Residency::Both);
        assert_ne!(x.device_ptr_mut().unwrap(), 0);
        assert_eq!(x.residency(), Residency::Device);
    } else {
        let e = x.device_ptr().unwrap_err();
        assert!(matches!(e, ongpu::Error::NoDevice { .. }), "{e}");
        let e = x.device_ptr_mut().unwrap_err();
        assert!(matches!(e, ongpu::Error::NoDevice { .. }), "{e}");
        assert_eq!(x.residency(), Residency::Host, "nothing changed");
        let want: Vec<f32> = (0..10).map(|i| i as f32).collect();
        assert_eq!(x.to_vec().unwrap(), want);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_hand_written_kernel_shares_fields_with_on_gpu() {
    with_backend(Backend::Cuda, || {
        let n = 100_003usize;
        let y: Field<f32, AoS> = Field::from_fn(n, |i| i as f32);
        let mut x: Field<f32, AoS> = Field::filled(n, 1.0);
        on_gpu!({
            x = y * 0.0 + 3.0;
        })
        .unwrap();
        assert_eq!(x.residency(), Residency::Device);

        let dev = cuda::device().unwrap();
        let (arch, _) = nvrtc::target_for(dev.info().compute_capability);
        let compiled = nvrtc::compile(SCALE_ADD, &arch, "scale_add", &[]).unwrap();
        let f = cuda::load_function(dev, &compiled, "scale_add").unwrap();
        let launch = |x: &mut Field<f32, AoS>| {
            let (xp, yp, n64) = (
                x.device_ptr_mut().unwrap(),
                y.device_ptr().unwrap(),
                n as u64,
            );
            let mut params = ParamList::new();
            params.push(&xp);
            params.push(&yp);
            params.push(&n64);
            let shape = Shape {
                grid: (n.div_ceil(256) as u32, 1, 1),
                block: (256, 1, 1),
                shared_bytes: 0,
            };
            // SAFETY: the parameters match the kernel's signature; both fields outlive the
            // launch (they are synchronised by the host reads below).
            unsafe { cuda::launch(dev, f, shape, &mut params, || "scale_add".into()) }.unwrap();
        };
        launch(&mut x);
        assert_eq!(x.residency(), Residency::Device, "the host copy is stale");
        assert_eq!(
            y.residency(),
            Residency::Both,
            "y was uploaded and is still current"
        );
        let v = x.to_vec().unwrap();
        for (i, &e) in v.iter().enumerate() {
            assert_eq!(e, 6.0 + i as f32, "site {i}");
        }
        assert_eq!(
            x.transfers().uploads,
            0,
            "x never went up: it was made on the device"
        );

        // A host write makes the device copy stale: the next address uploads it.
        x.set(5, -1.0).unwrap();
        launch(&mut x);
        assert_eq!(x.transfers().uploads, 1);
        for (i, &e) in x.to_vec().unwrap().iter().enumerate() {
            let before = if i == 5 { -1.0 } else { 6.0 + i as f32 };
            assert_eq!(e, 2.0 * before + i as f32, "site {i}");
        }
        assert_eq!(y.transfers().uploads, 1, "y uploaded once");
    });
}
