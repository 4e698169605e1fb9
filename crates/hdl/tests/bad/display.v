module display (input [3:0] g_a, input [3:0] e_b, output reg [3:0] y);
  always @* begin
    y = g_a + e_b;
    $display("y = %d", y);
  end
endmodule
