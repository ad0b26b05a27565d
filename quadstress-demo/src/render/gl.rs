//! The demo's raw OpenGL, in one place: the calls miniquad does not wrap (reading the
//! renderer's name, reading a render target back, blitting the canvas) and the hand-over
//! between macroquad's batches and the demo's own draws; and the one raw X11 call, asking
//! the screen's size before the window opens. Everything else in the demo is safe
//! code; this module is the one allowed `unsafe` (see `main.rs`), each block with the reason
//! it holds.
//!
//! Every function here runs on the main thread, inside the window's frame loop, where
//! miniquad has made the window's context current.

use macroquad::miniquad::RenderingBackend;
#[cfg(not(target_arch = "wasm32"))]
use macroquad::texture::RenderTarget;

/// The OpenGL renderer's name (`GL_RENDERER`: "llvmpipe (LLVM 15.0.6, 256 bits)", a GPU's
/// name), or `"WebGL"` in a page. Needs the window's context.
pub fn renderer_name() -> String {
    #[cfg(not(target_arch = "wasm32"))]
    {
        const GL_RENDERER: u32 = 0x1F01;
        // SAFETY: called on the main thread with the window's context current; the string
        // is NUL-terminated and owned by the driver for the context's life.
        unsafe {
            let name = macroquad::miniquad::gl::glGetString(GL_RENDERER);
            if name.is_null() {
                return String::new();
            }
            std::ffi::CStr::from_ptr(name.cast())
                .to_string_lossy()
                .into_owned()
        }
    }
    #[cfg(target_arch = "wasm32")]
    "WebGL".to_owned()
}

/// Whether the window is an X11 window (Linux and the BSDs).
pub const X11: bool = cfg!(all(
    unix,
    not(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "android"
    )),
    not(target_arch = "wasm32")
));

/// Why no X11 window can open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoX11 {
    /// libX11 cannot be loaded.
    NoLibrary,
    /// `XOpenDisplay` failed: no X server at `DISPLAY` (or none named), or it refused us.
    Unreachable,
}

/// The X screen's size in pixels, asked before the window opens through the same libX11
/// miniquad loads, so that a display miniquad could not open is refused with a message
/// instead of its panic. `Ok(None)` off Linux and the BSDs (no X11 there).
///
/// # Errors
/// Why no X11 window can open.
pub fn x11_screen_size() -> Result<Option<(u32, u32)>, NoX11> {
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android")),
        not(target_arch = "wasm32")
    ))]
    {
        use macroquad::miniquad::native::linux_x11::libx11::{_XPrivDisplay, LibX11};
        let x = LibX11::try_load().map_err(|_| NoX11::NoLibrary)?;
        // SAFETY: the display is checked for null before use and closed before returning;
        // its default screen index comes from the display itself and indexes its screen
        // array, as Xlib's `DefaultScreenOfDisplay` does.
        unsafe {
            // Xlib asks for this before any other call of a threaded program; miniquad calls
            // it again when it opens its own display, which Xlib allows.
            (x.XInitThreads)();
            // A server just started (`xvfb-run`) or busy now and then refuses a connection:
            // a few tries, over about a second.
            let mut display = (x.XOpenDisplay)(std::ptr::null());
            for _ in 0..10 {
                if !display.is_null() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
                display = (x.XOpenDisplay)(std::ptr::null());
            }
            if display.is_null() {
                return Err(NoX11::Unreachable);
            }
            let private = display as _XPrivDisplay;
            let screen = (*private)
                .screens
                .offset((*private).default_screen as isize);
            let size = ((*screen).width, (*screen).height);
            (x.XCloseDisplay)(display);
            // Unloading libX11 here and loading it again in miniquad leaves it unable to
            // open the display: the library stays loaded, as it does for the window anyway.
            std::mem::forget(x);
            let size = u32::try_from(size.0).ok().zip(u32::try_from(size.1).ok());
            Ok(size.filter(|&(w, h)| w > 0 && h > 0))
        }
    }
    #[cfg(not(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android")),
        not(target_arch = "wasm32")
    )))]
    Ok(None)
}

/// What the window's context can do, as far as the demo's routes care.
#[derive(Clone, Copy, Debug)]
pub struct ContextInfo {
    /// Instanced draws with GLSL 3.30 (desktop OpenGL 3.3 or newer).
    pub instancing: bool,
    /// GLSL 3.30, which comes with OpenGL 3 (and with it the framebuffer blit).
    pub glsl_330: bool,
}

/// What the window's context can do.
pub fn context_info() -> ContextInfo {
    // SAFETY: only reads the context's description; macroquad's batches are untouched.
    let info = unsafe { macroquad::window::get_internal_gl() }
        .quad_context
        .info();
    ContextInfo {
        instancing: info.features.instancing && info.glsl_support.v330,
        glsl_330: info.glsl_support.v330,
    }
}

/// Runs `f` on miniquad's rendering backend, after macroquad's queued batches have been
/// drawn: what `f` draws goes over them, into the same default framebuffer.
pub fn with_backend<R>(f: impl FnOnce(&mut dyn RenderingBackend) -> R) -> R {
    // SAFETY: macroquad's own batches are drawn first (`flush`); `f` works through miniquad's
    // checked backend, and macroquad re-applies its pipeline and bindings with its next
    // batch. The borrow ends before macroquad draws again.
    let mut gl = unsafe { macroquad::window::get_internal_gl() };
    gl.flush();
    f(gl.quad_context)
}

/// `pixels` as the bytes they are in memory, as a texture upload reads them.
pub fn as_bytes(pixels: &[u32]) -> &[u8] {
    // SAFETY: the pointer and length cover exactly the pixels' memory, which stays borrowed
    // for the slice's life; `u8` has no alignment requirement and every byte of a `u32` is
    // initialised.
    unsafe {
        std::slice::from_raw_parts(pixels.as_ptr().cast::<u8>(), std::mem::size_of_val(pixels))
    }
}

/// Reads boxes of `target` (`height` rows, the window's rows bottom up) into `texels`: each
/// box is its first column and row on the window, its width and height, and where its
/// texels start. `fbo` is the framebuffer object around the target's texture and that
/// texture's GL name, made on first use and kept.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_boxes(
    target: &RenderTarget,
    height: u32,
    fbo: &mut (u32, u32),
    boxes: &[([usize; 4], usize)],
    texels: &mut [u8],
) {
    use macroquad::miniquad::gl::*;
    use macroquad::miniquad::RawId;
    // SAFETY: the window's context is current on this thread; macroquad's draws into the
    // target are flushed first, and the framebuffer binding is restored after.
    unsafe {
        let mut gl = macroquad::window::get_internal_gl();
        gl.flush();
        let texture = match gl
            .quad_context
            .texture_raw_id(target.texture.raw_miniquad_id())
        {
            RawId::OpenGl(id) => id,
            #[allow(unreachable_patterns)]
            _ => return,
        };
        let mut bound = 0;
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &mut bound);
        if fbo.1 != texture || fbo.0 == 0 {
            if fbo.0 == 0 {
                glGenFramebuffers(1, &mut fbo.0);
            }
            glBindFramebuffer(GL_FRAMEBUFFER, fbo.0);
            glFramebufferTexture2D(
                GL_FRAMEBUFFER,
                GL_COLOR_ATTACHMENT0,
                GL_TEXTURE_2D,
                texture,
                0,
            );
            fbo.1 = texture;
        }
        glBindFramebuffer(GL_FRAMEBUFFER, fbo.0);
        const GL_PACK_ALIGNMENT: u32 = 0x0D05;
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        for &([x0, y0, w, h], start) in boxes {
            let gl_y = height as usize - y0 - h;
            glReadPixels(
                x0 as i32,
                gl_y as i32,
                w as i32,
                h as i32,
                GL_RGBA,
                GL_UNSIGNED_BYTE,
                texels[start..].as_mut_ptr().cast(),
            );
        }
        glBindFramebuffer(GL_FRAMEBUFFER, bound as u32);
    }
}

/// Shows the canvas with `glBlitFramebuffer` from a framebuffer object around a texture of
/// its own (desktop OpenGL 3 and newer; WebGL1 has no blit). The texture is made from BGRA
/// bytes, so that OpenGL stores it in the window's channel order: under Mesa's llvmpipe such
/// a blit is a copy of rows, where a converting one runs a shader over every pixel.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
pub struct Blit {
    /// The framebuffer object and the GL texture it wraps; 0 before the first frame.
    fbo: u32,
    texture: u32,
    /// The texture's size.
    size: (u16, u16),
    /// Set once the blit turned out unusable: the textured quad serves instead.
    refused: bool,
}

#[cfg(not(target_arch = "wasm32"))]
impl Blit {
    /// `GL_BGRA`, which miniquad does not name.
    const GL_BGRA: u32 = 0x80E1;
    const GL_TEXTURE_BINDING_2D: u32 = 0x8069;

    /// Copies `bytes` (`w` x `h`, BGRA, top row first) over the window, uploading them
    /// first when `upload` (or the size changed). False (nothing drawn) where that cannot be
    /// done.
    pub fn show(&mut self, bytes: &[u8], w: u16, h: u16, upload: bool) -> bool {
        use macroquad::miniquad::gl::*;
        if self.refused {
            return false;
        }
        // SAFETY: the window's context is current on this thread; macroquad's pending draws are
        // flushed first, and the texture and framebuffer bindings that miniquad's state cache
        // knows are restored before macroquad draws again.
        unsafe {
            let mut gl = macroquad::window::get_internal_gl();
            if !gl.quad_context.info().glsl_support.v330 {
                self.refused = true;
                return false;
            }
            gl.flush();
            let (wi, hi) = (i32::from(w), i32::from(h));
            let mut window_fbo = 0;
            glGetIntegerv(GL_FRAMEBUFFER_BINDING, &mut window_fbo);
            let mut bound_texture = 0;
            glGetIntegerv(Self::GL_TEXTURE_BINDING_2D, &mut bound_texture);
            let resized = self.size != (w, h) || self.texture == 0;
            if resized || upload {
                if self.texture == 0 {
                    glGenTextures(1, &mut self.texture);
                }
                glBindTexture(GL_TEXTURE_2D, self.texture);
                glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
                let pixels = bytes.as_ptr().cast();
                if resized {
                    // The unsized internal format lets Mesa keep the BGRA order it is given.
                    glTexImage2D(
                        GL_TEXTURE_2D,
                        0,
                        GL_RGBA as i32,
                        wi,
                        hi,
                        0,
                        Self::GL_BGRA,
                        GL_UNSIGNED_BYTE,
                        pixels,
                    );
                    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST as i32);
                    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST as i32);
                } else {
                    glTexSubImage2D(
                        GL_TEXTURE_2D,
                        0,
                        0,
                        0,
                        wi,
                        hi,
                        Self::GL_BGRA,
                        GL_UNSIGNED_BYTE,
                        pixels,
                    );
                }
                glBindTexture(GL_TEXTURE_2D, bound_texture as u32);
            }
            if resized {
                if self.fbo == 0 {
                    glGenFramebuffers(1, &mut self.fbo);
                }
                glBindFramebuffer(GL_FRAMEBUFFER, self.fbo);
                glFramebufferTexture2D(
                    GL_FRAMEBUFFER,
                    GL_COLOR_ATTACHMENT0,
                    GL_TEXTURE_2D,
                    self.texture,
                    0,
                );
                let complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
                glBindFramebuffer(GL_FRAMEBUFFER, window_fbo as u32);
                self.size = (w, h);
                if !complete {
                    self.refused = true;
                    return false;
                }
            }
            // miniquad leaves the scissor test on after a draw; a scissored blit is not a
            // plain copy for Mesa. It is switched on again for miniquad, which expects it.
            let mut scissor = 0;
            glGetIntegerv(GL_SCISSOR_TEST, &mut scissor);
            glDisable(GL_SCISSOR_TEST);
            glBindFramebuffer(GL_READ_FRAMEBUFFER, self.fbo);
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, window_fbo as u32);
            // Flipped in OpenGL's coordinates, which count the window's rows from the bottom
            // and the texture's from its first row: in memory both are top row first, so
            // this is the blit that copies rows as they are.
            glBlitFramebuffer(0, 0, wi, hi, 0, hi, wi, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
            glBindFramebuffer(GL_FRAMEBUFFER, window_fbo as u32);
            if scissor != 0 {
                glEnable(GL_SCISSOR_TEST);
            }
        }
        true
    }
}
