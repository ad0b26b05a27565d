//! The GPU route: the whole [`Scene`] in one instanced draw call through miniquad, 12 bytes an
//! instance (a pixel rectangle as four `u16` and a colour), so a frame's upload follows the
//! particles, not the window's pixels. Needs GLSL 3.30 and instancing (desktop OpenGL 3.3 or
//! newer); WebGL1 and OpenGL 2 take the canvas. Each instance covers exactly the pixels the
//! canvas fills for the same thing (the spans come from [`crate::render::scene`]).

use macroquad::miniquad::{
    Bindings, BlendFactor, BlendState, BlendValue, BufferId, BufferLayout, BufferSource,
    BufferType, BufferUsage, Equation, PassAction, Pipeline, PipelineParams, RenderingBackend,
    ShaderMeta, ShaderSource, UniformBlockLayout, UniformDesc, UniformType, UniformsSource,
    VertexAttribute, VertexFormat, VertexStep,
};

use crate::render::overlay::Layer;
use crate::render::scene::{
    outline_edges, span, square_fills, square_span, tint_span, Painter, Scene, Square,
};
use crate::settings::RendererChoice;

const VERTEX: &str = "#version 330
in vec2 corner;
in vec4 rect;
in vec4 color;
uniform vec2 screen;
out vec4 tint;
void main() {
    vec2 p = mix(rect.xy, rect.zw, corner);
    gl_Position = vec4(p.x / screen.x * 2.0 - 1.0, 1.0 - p.y / screen.y * 2.0, 0.0, 1.0);
    tint = color / 255.0;
}";
const FRAGMENT: &str = "#version 330
in vec4 tint;
out vec4 frag;
void main() {
    frag = tint;
}";

/// One rectangle: pixels `x0..x1` x `y0..y1` and a straight-alpha colour.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Instance {
    rect: [u16; 4],
    rgba: [u8; 4],
}

/// The instanced renderer's GPU objects and its reused instance list.
pub struct Instanced {
    pipeline: Pipeline,
    bindings: Bindings,
    /// Instances the instance buffer holds.
    capacity: usize,
    instances: Vec<Instance>,
}

fn instance([x0, y0, x1, y1]: [usize; 4], rgba: [u8; 4]) -> Instance {
    let c = |v: usize| v.min(usize::from(u16::MAX)) as u16;
    Instance {
        rect: [c(x0), c(y0), c(x1), c(y1)],
        rgba,
    }
}

impl Instanced {
    /// The pipeline and buffers, or the shader compiler's message.
    pub fn new(ctx: &mut dyn RenderingBackend) -> Result<Self, String> {
        let corners: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let geometry = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&corners),
        );
        let indices: [u16; 6] = [0, 1, 2, 0, 2, 3];
        let index_buffer = ctx.new_buffer(
            BufferType::IndexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&indices),
        );
        let capacity = 1024;
        let instances = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Stream,
            BufferSource::empty::<Instance>(capacity),
        );
        let shader = ctx
            .new_shader(
                ShaderSource::Glsl {
                    vertex: VERTEX,
                    fragment: FRAGMENT,
                },
                ShaderMeta {
                    images: vec![],
                    uniforms: UniformBlockLayout {
                        uniforms: vec![UniformDesc::new("screen", UniformType::Float2)],
                    },
                },
            )
            .map_err(|e| format!("{e:?}"))?;
        let pipeline = ctx.new_pipeline(
            &[
                BufferLayout::default(),
                BufferLayout {
                    step_func: VertexStep::PerInstance,
                    ..BufferLayout::default()
                },
            ],
            &[
                VertexAttribute::with_buffer("corner", VertexFormat::Float2, 0),
                VertexAttribute::with_buffer("rect", VertexFormat::Short4, 1),
                VertexAttribute::with_buffer("color", VertexFormat::Byte4, 1),
            ],
            shader,
            PipelineParams {
                // Straight alpha: the tints blend, everything else is opaque.
                color_blend: Some(BlendState::new(
                    Equation::Add,
                    BlendFactor::Value(BlendValue::SourceAlpha),
                    BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
                )),
                ..PipelineParams::default()
            },
        );
        Ok(Instanced {
            pipeline,
            bindings: Bindings {
                vertex_buffers: vec![geometry, instances],
                index_buffer,
                images: vec![],
            },
            capacity,
            instances: Vec::with_capacity(capacity),
        })
    }

    /// Draws `scene` over what is already in the default framebuffer of a `width` x `height`
    /// window, in one call.
    pub fn draw(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        scene: &Scene,
        width: usize,
        height: usize,
    ) {
        let (w, h) = (width.max(1), height.max(1));
        let list = &mut self.instances;
        list.clear();
        if let Some((r, rgba)) = scene.floor {
            list.extend(span(r, w, h).map(|s| instance(s, rgba)));
        }
        if let Some((r, [red, green, blue], alpha)) = scene.quad_tint {
            list.extend(tint_span(r, w, h).map(|s| instance(s, [red, green, blue, alpha])));
        }
        let side = scene.side;
        let squares = |list: &mut Vec<Instance>, squares: &[Square]| {
            for &s in squares {
                for (x, y, side, rgba) in square_fills(s, side) {
                    list.extend(square_span(x, y, side, w, h).map(|s| instance(s, rgba)));
                }
            }
        };
        squares(list, &scene.particles);
        let ([red, green, blue], alpha) = scene.tint;
        for &r in &scene.tints {
            list.extend(tint_span(r, w, h).map(|s| instance(s, [red, green, blue, alpha])));
        }
        squares(list, &scene.highlights);
        for &(r, rgba) in &scene.outlines {
            for edge in outline_edges(r, w, h).into_iter().flatten() {
                list.extend(span(edge, w, h).map(|s| instance(s, rgba)));
            }
        }
        for &(r, rgba) in &scene.flashes {
            list.extend(tint_span(r, w, h).map(|s| instance(s, rgba)));
        }
        for &r in &scene.probe {
            list.extend(tint_span(r, w, h).map(|s| instance(s, scene.probe_rgba)));
        }
        if list.is_empty() {
            return;
        }
        if list.len() > self.capacity {
            // Grows by doubling: a few reallocations while a pile builds, none after.
            self.capacity = list.len().next_power_of_two();
            let old = std::mem::replace(
                &mut self.bindings.vertex_buffers[1],
                ctx.new_buffer(
                    BufferType::VertexBuffer,
                    BufferUsage::Stream,
                    BufferSource::empty::<Instance>(self.capacity),
                ),
            );
            ctx.delete_buffer(old);
        }
        let buffer: BufferId = self.bindings.vertex_buffers[1];
        ctx.buffer_update(buffer, BufferSource::slice(list));
        ctx.begin_default_pass(PassAction::Nothing);
        ctx.apply_pipeline(&self.pipeline);
        ctx.apply_bindings(&self.bindings);
        let screen: [f32; 2] = [w as f32, h as f32];
        ctx.apply_uniforms(UniformsSource::table(&screen));
        ctx.draw(0, 6, list.len() as i32);
        ctx.end_render_pass();
    }
}

impl Painter for Instanced {
    fn renderer(&self) -> RendererChoice {
        RendererChoice::Instanced
    }

    fn blends_layers(&self) -> bool {
        false
    }

    fn paint(&mut self, scene: &Scene, _: [&Layer; 2], width: u16, height: u16, _: usize) {
        crate::render::gl::with_backend(|ctx| {
            self.draw(ctx, scene, usize::from(width), usize::from(height));
        });
    }
}
