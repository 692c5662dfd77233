//! The one tuple implementation of the facets: a call's arguments, as a tuple, are an
//! argument whose site is the tuple of the captures' sites.

use super::device::DeviceFacet;
use super::host::HostFacet;
use super::parts::{FaceBuffer, FaceBuffers, PartFacet, PartOf, PartStage};
use super::{CaptureArg, CaptureKind};
use crate::error::Result;
use std::ops::Range;

const fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Least common multiple (of layout blocks).
pub const fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b) * b
}

macro_rules! facets_tuple {
    ($($a:ident $i:tt),*) => {
        impl<$($a: CaptureArg),*> CaptureArg for ($($a,)*) {
            type Key = ($($a::Key,)*);

            #[allow(unused_variables)]
            fn push_kinds(out: &mut Vec<CaptureKind>) {
                $($a::push_kinds(out);)*
            }

            #[allow(unused_variables)]
            fn for_each_len(&self, f: &mut impl FnMut(Option<usize>)) {
                $(self.$i.for_each_len(f);)*
            }
        }

        impl<$($a: HostFacet),*> HostFacet for ($($a,)*) {
            type Site = ($($a::Site,)*);
            type HostView = ($($a::HostView,)*);
            const BLOCK: usize = {
                #[allow(unused_mut)]
                let mut block = 1;
                $(block = lcm(block, $a::BLOCK);)*
                block
            };

            #[allow(unused_variables, clippy::unused_unit)]
            fn host_view(&mut self, sites: &Range<usize>) -> Result<Self::HostView> {
                Ok(($(self.$i.host_view(sites)?,)*))
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn load(views: &Self::HostView, s: usize) -> Self::Site {
                ($($a::load(&views.$i, s),)*)
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn store(views: &Self::HostView, s: usize, sites: Self::Site) {
                $($a::store(&views.$i, s, sites.$i);)*
            }

            type Lanes = ($($a::Lanes,)*);
            const GROUPS_PAY: bool = false $(|| $a::GROUPS_PAY)*;
            const STENCIL: bool = false $(|| $a::STENCIL)*;

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn load_lanes(views: &Self::HostView, s0: usize) -> Self::Lanes {
                ($($a::load_lanes(&views.$i, s0),)*)
            }

            type LaneAccess = ($($a::LaneAccess,)*);
            type LaneSite = ($($a::LaneSite,)*);

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            fn lane_to_site(lane: Self::LaneSite) -> Self::Site {
                ($($a::lane_to_site(lane.$i),)*)
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            fn site_to_lane(site: Self::Site, lane: Self::LaneSite) -> Self::LaneSite {
                ($($a::site_to_lane(site.$i, lane.$i),)*)
            }

            #[inline(always)]
            #[allow(unused_variables)]
            fn lanes_ready(lanes: &Self::Lanes) -> bool {
                true $(&& $a::lanes_ready(&lanes.$i))*
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            fn lane_access(lanes: &mut Self::Lanes) -> Self::LaneAccess {
                ($($a::lane_access(&mut lanes.$i),)*)
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn lane(
                access: &Self::LaneAccess,
                out: &Self::LaneOut,
                l: usize,
            ) -> Self::LaneSite {
                ($($a::lane(&access.$i, &out.$i, l),)*)
            }

            type LaneOut = ($($a::LaneOut,)*);

            #[inline(always)]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn lane_out(views: &Self::HostView, s0: usize) -> Self::LaneOut {
                ($($a::lane_out(&views.$i, s0),)*)
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn set_lane(out: &mut Self::LaneOut, l: usize, sites: Self::LaneSite) {
                $($a::set_lane(&mut out.$i, l, sites.$i);)*
            }

            #[inline(always)]
            #[allow(unused_variables)]
            unsafe fn store_lanes(views: &Self::HostView, s0: usize, out: &Self::LaneOut) {
                $($a::store_lanes(&views.$i, s0, &out.$i);)*
            }
        }

        impl<$($a: DeviceFacet),*> DeviceFacet for ($($a,)*) {
            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare(
                &mut self,
                dev: &'static crate::cuda::Device,
                sites: &Range<usize>,
            ) -> Result<()> {
                $(self.$i.device_prepare(dev, sites)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[inline(always)]
            #[allow(unused_variables)]
            fn push_params<'p>(&'p self, params: &mut crate::cuda::ParamList<'p>) {
                $(self.$i.push_params(params);)*
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn device_prepare_on(
                &mut self,
                dev: &'static crate::cuda::Device,
                sites: &Range<usize>,
                queue: crate::cuda::stream::Queue,
            ) -> Result<()> {
                $(self.$i.device_prepare_on(dev, sites, queue)?;)*
                Ok(())
            }

            #[cfg(feature = "cuda")]
            #[allow(unused_variables)]
            fn mark_queued(&mut self, mark: &crate::field::pending::Mark) {
                $(self.$i.mark_queued(mark);)*
            }
        }

        impl<$($a: PartFacet),*> PartFacet for ($($a,)*) {
            #[allow(unused_variables)]
            fn part_of(&self, f: &mut impl FnMut(Option<PartOf>)) {
                $(self.$i.part_of(f);)*
            }

            #[inline(always)]
            #[allow(unused_variables)]
            fn select_part(&mut self, part: usize) {
                $(self.$i.select_part(part);)*
            }

            #[allow(unused_variables)]
            fn mark_written(&mut self, parity: Option<usize>) {
                $(self.$i.mark_written(parity);)*
            }

            fn reads_halos(&self) -> bool {
                false $(|| self.$i.reads_halos())*
            }

            fn refresh_halos(&mut self) -> Result<()> {
                $(self.$i.refresh_halos()?;)*
                Ok(())
            }

            #[allow(unused_variables)]
            fn part_wait(&self, part: usize, stage: PartStage) -> Result<()> {
                $(self.$i.part_wait(part, stage)?;)*
                Ok(())
            }

            fn stale_halos(&self) -> bool {
                false $(|| self.$i.stale_halos())*
            }

            #[allow(unused_variables)]
            fn halo_send(&mut self, round: usize, faces: &mut dyn FaceBuffers) -> Result<()> {
                $(self.$i.halo_send(round, faces)?;)*
                Ok(())
            }

            #[allow(unused_variables)]
            fn halo_receive(
                &mut self,
                round: usize,
                halos: &mut dyn Iterator<Item = &mut dyn FaceBuffer>,
            ) -> Result<()> {
                $(self.$i.halo_receive(round, halos)?;)*
                Ok(())
            }
        }
    };
}

for_each_tuple_arity!(facets_tuple);
