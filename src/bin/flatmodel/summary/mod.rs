//! What `inspect` says of a file: a typed summary per format, built from the verified file and
//! rendered as text or as the JSON that `inspect.schema.json` describes.

pub mod arena;
pub mod associated;
pub mod conversion;
pub mod cvimodel;
pub mod executorch;
pub mod facts;
pub mod io;
pub mod needs;
pub mod package;
pub mod support_metadata;
pub mod training;
pub mod warnings;
pub mod weights;
