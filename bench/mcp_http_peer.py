#!/usr/bin/env python3
"""The HTTP load peer: the official Python MCP SDK's `MCPServer` serving the
same `calculate` tool as the assistant, over streamable HTTP.
Usage: mcp_http_peer.py PORT [SESSION_IDLE_SECONDS]"""
import ast
import operator
import sys

from mcp.server.mcpserver import MCPServer

OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
       ast.Div: operator.truediv, ast.Pow: operator.pow, ast.USub: operator.neg}


def evaluate(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        return OPS[type(node.op)](evaluate(node.left), evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in OPS:
        return OPS[type(node.op)](evaluate(node.operand))
    raise ValueError("unsupported expression")


server = MCPServer("peer")


@server.tool()
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return str(evaluate(ast.parse(expression, mode="eval").body))


idle = float(sys.argv[2]) if len(sys.argv) > 2 else 1800.0
server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]), session_idle_timeout=idle)
