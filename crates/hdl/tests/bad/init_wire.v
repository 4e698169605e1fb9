module init_wire (input clk, input g_a, output y);
  reg r = 0;
  reg t;
  initial begin t = 0; #5 t = 1; end
  always @(posedge clk) r <= g_a ^ t;
  assign y = r;
endmodule
