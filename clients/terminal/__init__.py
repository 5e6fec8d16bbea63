"""clients/terminal"""
