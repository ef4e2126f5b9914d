//! The container kit: the glue every format's reader shares around its generated schema code.
//! One set of parsing entry points ([`entry`]), one verified-root sequence ([`root`]), one work
//! budget ([`budget`]) and one builder of located errors ([`path`], and [`slot`] to build them in
//! place, with [`walk`] for rule walks), so that each format says only what differs; and the
//! header ExecuTorch writes before a delegate's flatbuffer ([`blob_header`]), which the Vulkan and
//! XNNPACK blobs share.

pub(crate) mod blob_header;
mod budget;
mod entry;
mod ids;
mod path;
mod root;
mod slot;
mod walk;

pub(crate) use budget::Budget;
pub use entry::Parsed;
pub(crate) use entry::{entry_points, parse_into, parse_with, Container};
pub(crate) use ids::{check_ids, in_range};
pub(crate) use path::{path_error, Fault, Segment};
#[cfg(feature = "nnpackage")]
pub(crate) use root::reread_root;
pub(crate) use root::{verified_root, verified_root_in};
pub(crate) use slot::{locate, with_error_slot};
pub(crate) use walk::{Checked, Walk};
