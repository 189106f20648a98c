// Fit map, fragment stage. u_fraction holds memory / GPU capacity per cell (R16F, linearly
// filtered). Colour: green (little) -> yellow -> orange at capacity; beyond capacity a muted
// red. The capacity contour (fraction = 1) is drawn crisp at any zoom: its distance in
// pixels comes from the screen-space derivative of the fraction (fwidth).
precision highp float;

in vec2 v_uv;
out vec4 out_colour;

uniform sampler2D u_fraction;
uniform float u_line_px;      // contour half-width in pixels (scaled by the DPR)
uniform vec3 u_line_colour;
uniform vec2 u_marker;        // the current workload, in map coordinates (0..1); < 0: none

vec3 ramp(float f) {
  // Perceptually ordered stops; the hue jump at 1.0 marks "does not fit".
  vec3 low = vec3(0.16, 0.55, 0.38);
  vec3 mid = vec3(0.85, 0.78, 0.25);
  vec3 high = vec3(0.93, 0.50, 0.18);
  vec3 over = vec3(0.55, 0.16, 0.18);
  if (f >= 1.0) return mix(over, over * 0.7, clamp((f - 1.0) / 3.0, 0.0, 1.0));
  return f < 0.6 ? mix(low, mid, f / 0.6) : mix(mid, high, (f - 0.6) / 0.4);
}

void main() {
  float f = texture(u_fraction, v_uv).r;
  vec3 colour = ramp(f);
  // Capacity contour: |f - 1| measured in pixels.
  float px = abs(f - 1.0) / max(fwidth(f), 1e-6);
  float line = 1.0 - smoothstep(u_line_px - 0.5, u_line_px + 0.5, px);
  colour = mix(colour, u_line_colour, line);
  // Faint contours at 25%, 50%, 75%.
  for (int k = 1; k <= 3; ++k) {
    float level = float(k) * 0.25;
    float d = abs(f - level) / max(fwidth(f), 1e-6);
    colour = mix(colour, colour * 0.75, 1.0 - smoothstep(0.0, 1.0, d));
  }
  // The current workload: a ring.
  if (u_marker.x >= 0.0) {
    vec2 d_uv = (v_uv - u_marker) / max(fwidth(v_uv), vec2(1e-6));
    float r = length(d_uv);
    float ring = 1.0 - smoothstep(1.0, 2.0, abs(r - 6.0 * u_line_px));
    colour = mix(colour, vec3(1.0), ring);
  }
  out_colour = vec4(colour, 1.0);
}
