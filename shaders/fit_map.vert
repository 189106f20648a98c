// Fit map, vertex stage. One quad (two triangles from gl_VertexID, no vertex buffer) over the
// widget's viewport; passes the map coordinate (0..1 on both axes, y up = more sequences).
// The app prepends "#version 300 es" (WebGL 2) or "#version 330 core" (desktop).
out vec2 v_uv;

void main() {
  // 0:(0,0) 1:(1,0) 2:(0,1) 3:(0,1) 4:(1,0) 5:(1,1)
  int i = gl_VertexID;
  vec2 corner = vec2((i == 1 || i == 4 || i == 5) ? 1.0 : 0.0, (i == 2 || i == 3 || i == 5) ? 1.0 : 0.0);
  v_uv = corner;
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
