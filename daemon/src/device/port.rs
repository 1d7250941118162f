//! Opening serial ports: ttys (and the ptys of emulated boards) at 9600 8N1 raw.
//!
//! The only place that opens a tty. Errors say what to do (permissions, a port in use). Also
//! what the device actor needs of a port at all ([`BoardIo`], [`Opener`]), so it runs as well
//! on an in-memory stream.

use std::io;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncWrite};

use tokio_serial::{DataBits, FlowControl, Parity, SerialPortBuilderExt, SerialStream, StopBits};

/// A byte stream to a board: a tty, or one end of a `tokio::io::duplex` for an emulated one.
pub(crate) trait BoardIo: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> BoardIo for T {}

/// Opens a board's stream again after it was lost (a replug).
pub(crate) type Opener<P> = Box<dyn FnMut() -> io::Result<P> + Send>;

/// Open `path` as a DGT board: 9600 baud, 8N1, no flow control, exclusive.
pub(crate) fn open_tty(path: &Path) -> io::Result<SerialStream> {
    // Never open read-write what is not a terminal (a regular file, a FIFO, a disk).
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_char_device() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a serial device; give the board's tty, such as /dev/ttyACM0, \
                     /dev/rfcomm0 or a /dev/dgt/ link",
                    path.display()
                ),
            ));
        }
    }
    let name = path.to_string_lossy();
    tokio_serial::new(name.as_ref(), 9600)
        .data_bits(DataBits::Eight)
        .parity(Parity::None)
        .stop_bits(StopBits::One)
        .flow_control(FlowControl::None)
        .open_native_async()
        .map_err(|e| explain_open_error(path, e))
}

fn explain_open_error(path: &Path, e: tokio_serial::Error) -> io::Error {
    let io: io::Error = e.into();
    let shown = path.display();
    let msg = match io.kind() {
        io::ErrorKind::NotFound => format!(
            "{shown} does not exist; check the board is plugged in (`ls /dev/ttyACM* /dev/ttyUSB* /dev/rfcomm*`)"
        ),
        io::ErrorKind::PermissionDenied => format!(
            "permission denied opening {shown}; the daemon's user needs group dialout (the \
             shipped unit sets SupplementaryGroups=dialout)"
        ),
        _ if io.raw_os_error() == Some(16) => format!(
            "{shown} is in use by another program (ModemManager? install the udev rules that set \
             ID_MM_DEVICE_IGNORE, or stop the other program)"
        ),
        _ => format!("cannot open {shown}: {io}"),
    };
    io::Error::new(io.kind(), msg)
}
