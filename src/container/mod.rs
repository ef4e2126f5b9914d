//! The container kit: the glue every format's reader shares around its generated schema code.
//! One set of parsing entry points ([`entry`]), one verified-root sequence ([`root`]), one work
//! budget ([`budget`]), one builder of located errors ([`path`]) and checks that write their
//! error in place ([`walk`]), so that each format says only what differs.

mod budget;
mod entry;
mod ids;
mod path;
mod root;
mod walk;

pub(crate) use budget::Budget;
pub use entry::Parsed;
pub(crate) use entry::{entry_points, parse_with, Container};
pub(crate) use ids::{check_ids, in_range};
pub(crate) use path::{fail_at, path_error, Fault, Segment};
pub(crate) use root::{verified_root, verified_root_in};
pub(crate) use walk::{in_place, Checked, Walk};
