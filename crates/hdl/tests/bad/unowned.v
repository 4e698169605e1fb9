module unowned (input [7:0] g_a, input [7:0] key, output [7:0] y);
  assign y = g_a ^ key;
endmodule
