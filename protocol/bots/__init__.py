"""protocol/bots"""
